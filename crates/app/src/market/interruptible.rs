//! The interruptible tier around the locked decision (`domain::booking::interruptible`, taken in
//! the booking's transaction): the notice a started booking gets, what displaced bookings are
//! owed once the decision stands (their gates and agents learn at once; a paid one is refunded
//! through the payment provider, an unpaid one's PaymentIntent cancelled; a refund that fails
//! is made by the sweep), and the bid that would hold now.

use chrono::{DateTime, Duration, Utc};
use domain::booking::{self, Interval, interruptible};
use store::{BookingRecord, DisplacedBooking, ListingRecord};

use crate::{App, AppError};

/// Most owed refunds of displaced bookings one sweep makes.
const REFUNDS_PER_SWEEP: u64 = 100;

impl App {
    /// How long a started interruptible booking keeps its GPUs once displaced.
    pub(crate) fn interrupt_notice(&self) -> Duration {
        Duration::seconds(self.config().payments.interrupt_notice_secs as i64)
    }

    /// After a booking displaced others: their gateway access is looked up afresh, their
    /// machine's agent is woken (accounts and containers end at the new `ends_at`), an unpaid
    /// one's PaymentIntent is cancelled and a paid one refunded. A failure is left to the
    /// sweep ([`App::give_back_displacements`]).
    pub(crate) async fn settle_displaced(&self, displaced: &[DisplacedBooking]) {
        let mut woken = Vec::new();
        for d in displaced {
            self.forget_gate(d.id);
            let booking = match self.db().booking_by_id(d.id).await {
                Ok(Some(booking)) => booking,
                Ok(None) => continue,
                Err(e) => {
                    tracing::warn!(booking = %d.id, error = %e, "a displaced booking could not be read; the sweep refunds it");
                    continue;
                }
            };
            if !woken.contains(&booking.listing_id) {
                woken.push(booking.listing_id);
                self.wake_agent(booking.listing_id).await;
            }
            self.withdraw_raise(d.id).await;
            if d.unpaid {
                self.release_expired(&[d.id]).await;
            } else if let Err(e) = self.give_back_displacement(&booking).await {
                tracing::warn!(booking = %d.id, error = %e, "refunding a displaced booking failed; the sweep tries again");
            }
        }
    }

    /// Makes the refunds of displaced bookings still owed (the payment provider failed the
    /// first try). Returns how many.
    pub(crate) async fn give_back_displacements(&self) -> Result<usize, AppError> {
        let mut given = 0;
        for booking in self
            .db()
            .owed_displacement_refunds(REFUNDS_PER_SWEEP)
            .await?
        {
            match self.give_back_displacement(&booking).await {
                Ok(true) => given += 1,
                Ok(false) => {}
                Err(e) => {
                    tracing::warn!(booking = %booking.id, error = %e, "refunding a displaced booking failed; trying again next sweep");
                }
            }
        }
        Ok(given)
    }

    /// Gives a displaced booking back its recorded refund once (one idempotency key per
    /// booking); `false` when it was given already or nothing is owed.
    async fn give_back_displacement(&self, booking: &BookingRecord) -> Result<bool, AppError> {
        if booking.interruption_refunded_at.is_some() {
            return Ok(false);
        }
        let amount = booking.refund_amount.unwrap_or(0);
        let key = format!("booking-{}-interruption-refund", booking.id);
        let (refund_id, rows) = self.refund_part(booking, amount, &key, false).await?;
        let given = self
            .db()
            .displacement_refunded(booking.id, refund_id.as_deref(), &rows, Utc::now())
            .await?;
        if given {
            tracing::info!(booking = %booking.id, amount, "a displaced booking was refunded");
        }
        Ok(given)
    }

    /// The lowest bid per GPU-hour at which `gpus` GPUs of `listing` over `[from, until)`
    /// would hold now against its bookings (but `except`); `None` when the listing takes no
    /// interruptible bookings, the interval is over or no bid would hold.
    pub(crate) async fn bid_that_holds(
        &self,
        listing: &ListingRecord,
        gpus: i32,
        (from, until): (DateTime<Utc>, DateTime<Utc>),
        except: Option<domain::BookingId>,
    ) -> Result<Option<i64>, AppError> {
        let now = Utc::now();
        let from = from.max(now);
        // A listing that takes no bids: nothing to read.
        if listing.min_bid_per_gpu_hour.is_none() {
            return Ok(None);
        }
        let Ok(interval) = Interval::new(from, until, now) else {
            return Ok(None);
        };
        let machine = self.machine_now(listing, &interval, now).await?;
        Ok(interruptible::bid_that_holds(
            &machine,
            &interval,
            gpus,
            now,
            self.interrupt_notice(),
            except,
        ))
    }

    /// A listing's machine over `interval` as the booking rules would read it now (without
    /// its lock: an estimate for quotes and answers; bookings decide under the lock). Its
    /// maintenance windows hold every GPU.
    pub(crate) async fn machine_now(
        &self,
        listing: &ListingRecord,
        interval: &Interval,
        now: DateTime<Utc>,
    ) -> Result<booking::Machine, AppError> {
        let price = crate::stored_money(listing.price_amount, &listing.currency)?;
        let holding = self
            .db()
            .holding_bookings(&[listing.id], interval.starts_at(), interval.ends_at(), now)
            .await?
            .into_iter()
            .map(|(_, h)| h)
            .collect();
        Ok(booking::Machine {
            status: *listing.status,
            window: (listing.available_from, listing.available_until),
            capacity: listing.gpu_count,
            holding,
            renter_open: Default::default(),
            maintenance: Vec::new(),
            price_per_gpu_hour: Some(price),
            min_bid_per_gpu_hour: listing.min_bid_per_gpu_hour.map(|m| price.with_minor(m)),
        })
    }
}
