//! Quotes: what a booking request would cost and whether it would hold right now — what it
//! would displace, what would refuse it, and the bid that would hold — decided by the same
//! rules as a booking (`domain::booking::interruptible::admit_displacing`) on the machine as
//! read now, without its lock and without side effects. A renter's quota and budget are not
//! judged: they are the booking's to refuse.

use chrono::{DateTime, Utc};
use domain::Money;
use domain::booking::interruptible::{self, Claim};
use domain::booking::{self, HeldBy, Interval, Refusal, Tier};

use crate::{App, AppError};

/// A booking request to quote.
#[derive(Debug, Clone)]
pub struct QuoteRequest<'a> {
    pub listing_id: domain::ListingId,
    pub gpu_count: i64,
    pub starts_at: DateTime<Utc>,
    pub ends_at: DateTime<Utc>,
    pub tier: Option<&'a str>,
    pub bid_per_gpu_hour: Option<i64>,
}

/// What a request would cost and do now.
#[derive(Debug, Clone, PartialEq)]
pub struct Quote {
    pub listing_id: domain::ListingId,
    pub gpu_count: i32,
    pub starts_at: DateTime<Utc>,
    pub ends_at: DateTime<Utc>,
    pub tier: Tier,
    /// The price per GPU-hour it would be made at: the listing's, or the bid.
    pub per_gpu_hour: Money,
    /// What it would cost.
    pub total: Money,
    /// `None` when it would hold now; else why not.
    pub refusal: Option<Refusal>,
    /// Interruptible bookings it would displace now, and their GPUs.
    pub displaces_bookings: usize,
    pub displaces_gpus: i32,
    /// The lowest bid per GPU-hour that would hold now for these GPUs; `None` when the
    /// listing takes no interruptible bookings or no bid would.
    pub min_bid_per_gpu_hour_now: Option<i64>,
}

impl App {
    /// Quotes a booking request (anyone; no side effects).
    pub async fn quote(&self, request: &QuoteRequest<'_>) -> Result<Quote, AppError> {
        let now = Utc::now();
        let interval = Interval::new(request.starts_at, request.ends_at, now)?;
        let listing = self.listing_record(request.listing_id.as_uuid()).await?;
        let gpus = crate::market::bookings::gpus_of(&listing, request.gpu_count)?;
        let claim = interruptible::claim(
            request.tier,
            request.bid_per_gpu_hour,
            listing.min_bid_per_gpu_hour,
        )?;
        let listed = crate::stored_money(listing.price_amount, &listing.currency)?;
        let (per_gpu_hour, tier) = match claim {
            Claim::OnDemand => (listed, Tier::OnDemand),
            Claim::Bid(bid) => (listed.with_minor(bid), Tier::Interruptible { bid }),
        };
        let machine = self.machine_now(&listing, &interval, now).await?;
        let notice = self.interrupt_notice();
        let decided =
            interruptible::admit_displacing(&machine, &interval, gpus, claim, now, notice);
        let (refusal, displaces_bookings, displaces_gpus) = match decided {
            Ok(displaced) => {
                let gpus = displaced
                    .iter()
                    .filter_map(|d| {
                        machine
                            .holding
                            .iter()
                            .find(|h| h.by == HeldBy::Booking(d.booking))
                    })
                    .map(|h| h.gpus)
                    .sum();
                (None, displaced.len(), gpus)
            }
            Err(refusal) => (Some(refusal), 0, 0),
        };
        Ok(Quote {
            listing_id: request.listing_id,
            gpu_count: gpus,
            starts_at: interval.starts_at(),
            ends_at: interval.ends_at(),
            tier,
            per_gpu_hour,
            total: booking::price(per_gpu_hour, gpus, &interval),
            refusal,
            displaces_bookings,
            displaces_gpus,
            min_bid_per_gpu_hour_now: interruptible::bid_that_holds(
                &machine, &interval, gpus, now, notice, None,
            ),
        })
    }
}
