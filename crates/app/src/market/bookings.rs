//! Bookings: a renter books GPUs of a listing over an interval. Capacity is decided inside
//! the store's locked transaction, so racing requests can never over-commit a machine. Every
//! request carries an idempotency key: the same key and request return the same booking, the
//! same key with another request is refused.

use chrono::{DateTime, Utc};
use domain::booking::interruptible::{self, Claim};
use domain::booking::{self, Interval, Refusal};
use domain::{BadgeState, BookingStatus, ValidationError};
use sha2::{Digest, Sha256};
use store::{BookingError, BookingRecord};
use uuid::Uuid;

use crate::market::listings::Listing;
use crate::{App, AppError, Caller};

#[derive(Debug, Clone)]
pub struct BookingRequest<'a> {
    pub listing_id: domain::ListingId,
    pub gpu_count: i64,
    pub starts_at: DateTime<Utc>,
    pub ends_at: DateTime<Utc>,
    pub idempotency_key: &'a str,
    /// Whether the renter is given the machine's SSH and HTTPS access: `false` waives them,
    /// so that the booking can carry the listing's guarantee.
    pub direct_access: bool,
    /// The price per GPU-hour the renter expects to pay, in the listing's currency's minor
    /// units: another one now is `price_changed` (not part of what the key stands for).
    pub expected_amount_per_gpu_hour: Option<i64>,
    /// The container to run on the booked GPUs (the listing must offer its image).
    pub container: Option<domain::container::BookingContainer>,
    /// Seconds without a gateway request after which the booking is cancelled as its renter
    /// would cancel it (gateway-only bookings).
    pub stop_when_idle_secs: Option<i64>,
    /// `on_demand` (the default) or `interruptible`, with `bid_per_gpu_hour`.
    pub tier: Option<&'a str>,
    /// An interruptible booking's bid per GPU-hour, in the listing's currency's minor units.
    pub bid_per_gpu_hour: Option<i64>,
}

impl BookingRequest<'_> {
    /// What identifies "the same request" under one idempotency key (a waiver of direct
    /// access is part of it; the default adds nothing, so older keys still match).
    fn fingerprint(&self) -> String {
        let mut canonical = format!(
            "{}|{}|{}|{}",
            self.listing_id,
            self.gpu_count,
            self.starts_at.timestamp_micros(),
            self.ends_at.timestamp_micros()
        );
        if !self.direct_access {
            canonical.push_str("|direct_access=false");
        }
        if let Some(container) = &self.container {
            canonical.push_str("|container=");
            canonical.push_str(&serde_json::to_string(container).unwrap_or_default());
        }
        if let Some(secs) = self.stop_when_idle_secs {
            canonical.push_str(&format!("|stop_when_idle_secs={secs}"));
        }
        if let Some(tier) = self.tier.filter(|t| *t != "on_demand") {
            canonical.push_str(&format!("|tier={tier}"));
        }
        if let Some(bid) = self.bid_per_gpu_hour {
            canonical.push_str(&format!("|bid_per_gpu_hour={bid}"));
        }
        hex::encode(Sha256::digest(canonical.as_bytes()))
    }
}

/// What a new booking is made of.
pub(crate) struct NewBooking<'a> {
    pub listing: Uuid,
    pub renter: Uuid,
    pub gpus: i32,
    pub interval: &'a Interval,
    pub per_gpu_hour: domain::Money,
    pub key: &'a str,
    pub fingerprint: &'a str,
    pub plan: Option<Uuid>,
    /// The renter is given the machine's SSH and HTTPS access (unless waived).
    pub direct_access: bool,
    /// The container it runs, checked against the listing's offer, with its limits.
    pub container: Option<domain::container::KeptContainer>,
    /// Checked by `domain::booking::stop_when_idle`.
    pub stop_when_idle_secs: Option<i32>,
    /// On demand, or interruptible at its bid (`per_gpu_hour` is then the bid).
    pub tier: booking::Tier,
}

/// A booking as `app` hands it out.
#[derive(Debug, Clone, PartialEq)]
pub struct Booking {
    pub id: domain::BookingId,
    pub listing_id: domain::ListingId,
    pub renter_id: domain::UserId,
    pub status: domain::BookingStatus,
    pub gpu_count: i32,
    pub starts_at: DateTime<Utc>,
    pub ends_at: DateTime<Utc>,
    /// Fixed at booking time from the listing's price (or the bid); repriced by a bid raise
    /// once it holds.
    pub price: domain::Money,
    /// `stripe`, or `None` when payments are not taken.
    pub payment_provider: Option<String>,
    pub payment_intent_id: Option<String>,
    /// For the renter to pay with; shown only while the booking waits for its payment.
    pub client_secret: Option<String>,
    pub platform_fee: Option<domain::Money>,
    pub payment_error: Option<String>,
    pub refund: Option<domain::Money>,
    pub cancelled_at: Option<DateTime<Utc>>,
    pub created_at: DateTime<Utc>,
    /// The booked listing's badge now (`unverified`, `verified`, `expired` or `demoted`):
    /// a renter sees when a spot check found the machine no longer as verified.
    pub listing_verification_state: BadgeState,
    /// The performance guarantee it was made under, with its credits.
    pub guarantee: Option<crate::money::guarantees::BookingGuarantee>,
    /// The plan it was booked in, with the plan's other bookings.
    pub plan_id: Option<Uuid>,
    /// The renter is given the machine's SSH and HTTPS access (what the listing has).
    pub direct_access: bool,
    /// Why it has no performance guarantee, when it has none.
    pub no_guarantee_reason: Option<String>,
    /// The container it runs on its GPUs, when it asked for one.
    pub container: Option<domain::container::BookingContainer>,
    /// Seconds without a gateway request after which it is cancelled, when it asked.
    pub stop_when_idle_secs: Option<i32>,
    /// What maintenance windows took of it, oldest first: no access over each, and the
    /// share of the price each took given back.
    pub interruptions: Vec<Interruption>,
    /// On demand, or interruptible at its bid (minor units per GPU-hour, the bid in force).
    pub tier: booking::Tier,
    /// The price per GPU-hour in force: the listing's when booked on demand, the bid;
    /// `None` for bookings made before it was recorded.
    pub price_per_gpu_hour: Option<domain::Money>,
    /// The lowest bid per GPU-hour at which GPUs like its own (over what is left of its
    /// interval, its own not counted) would hold now; `None` when the listing takes no
    /// interruptible bookings, no bid would hold, or the booking is over.
    pub min_bid_per_gpu_hour_now: Option<i64>,
    /// When it was displaced (interruptible), its access's end and what that gave back.
    pub displacement: Option<Displacement>,
    /// Its latest bid raise charged through the payment provider, whatever became of it.
    pub bid_raise: Option<BidRaise>,
}

/// A raise of a paid interruptible booking's bid, charged for the difference: the old bid
/// holds until it is paid.
#[derive(Debug, Clone, PartialEq)]
pub struct BidRaise {
    pub bid_per_gpu_hour: i64,
    /// `pending_payment`, `paid` (in force), `expired`, `cancelled`, `failed` or `refunded`.
    pub status: String,
    pub amount: domain::Money,
    pub platform_fee: domain::Money,
    pub payment_intent_id: Option<String>,
    /// For the renter to pay with, while it waits for its payment.
    pub client_secret: Option<String>,
    pub error: Option<String>,
    pub created_at: DateTime<Utc>,
    /// When it was paid (and held, unless `refunded`).
    pub paid_at: Option<DateTime<Utc>>,
    /// Until when it waits for its payment.
    pub hold_expires_at: DateTime<Utc>,
}

impl Booking {
    /// Hides what pays for it (the booking's and its bid raise's `client_secret`): the
    /// renter's alone, never the provider's.
    pub(crate) fn hide_payment_secrets(&mut self) {
        self.client_secret = None;
        if let Some(raise) = &mut self.bid_raise {
            raise.client_secret = None;
        }
    }
}

impl BidRaise {
    fn of(raise: store::BidRaiseRecord) -> Result<Self, AppError> {
        let amount = crate::stored_money(raise.amount, &raise.currency)?;
        let waiting = raise.status == store::raise_status::PENDING_PAYMENT;
        Ok(Self {
            bid_per_gpu_hour: raise.bid_per_gpu_hour,
            amount,
            platform_fee: amount.with_minor(raise.platform_fee_amount),
            payment_intent_id: raise.payment_intent_id,
            client_secret: raise.client_secret.filter(|_| waiting),
            error: raise.payment_error,
            created_at: raise.created_at,
            paid_at: raise.paid_at,
            hold_expires_at: raise.hold_expires_at,
            status: raise.status,
        })
    }
}

/// An interruptible booking displaced.
#[derive(Debug, Clone, PartialEq)]
pub struct Displacement {
    pub at: DateTime<Utc>,
    /// The end it was booked for, when it had started and its notice ended its access
    /// early (its `ends_at` is then the notice's end).
    pub booked_ends_at: Option<DateTime<Utc>>,
    /// What it is given back: all of it when it had not started, the part after its access
    /// ended otherwise (never what maintenance windows gave back already).
    pub refund: domain::Money,
    /// When the refund was made; `None` while owed.
    pub refunded_at: Option<DateTime<Utc>>,
}

/// The part of a booking a maintenance window took.
#[derive(Debug, Clone, PartialEq)]
pub struct Interruption {
    pub window_id: Uuid,
    /// No access over `[from, until)`.
    pub from: DateTime<Utc>,
    pub until: DateTime<Utc>,
    /// The share of the price given back for it (no time twice when windows overlap).
    pub refund: domain::Money,
    /// When it was given back: `None` while owed (a booking awaiting its payment is given
    /// it once paid).
    pub refunded_at: Option<DateTime<Utc>>,
}

impl TryFrom<BookingRecord> for Booking {
    type Error = AppError;

    fn try_from(b: BookingRecord) -> Result<Self, AppError> {
        let price = crate::stored_money(b.price_amount, &b.currency)?;
        let status = *b.status;
        Ok(Self {
            id: b.id.into(),
            listing_id: b.listing_id.into(),
            renter_id: b.renter_id.into(),
            status,
            gpu_count: b.gpu_count,
            starts_at: b.starts_at,
            ends_at: b.ends_at,
            price,
            payment_provider: b.payment_provider,
            payment_intent_id: b.payment_intent_id,
            client_secret: b.client_secret,
            platform_fee: b.platform_fee_amount.map(|fee| price.with_minor(fee)),
            payment_error: b.payment_error,
            // Recorded when a cancellation starts; shown once it is done.
            refund: b
                .refund_amount
                .filter(|_| status == domain::BookingStatus::Cancelled)
                .map(|refund| price.with_minor(refund)),
            cancelled_at: b.cancelled_at,
            created_at: b.created_at,
            listing_verification_state: BadgeState::Unverified,
            guarantee: None,
            plan_id: b.plan_id,
            direct_access: b.direct_access,
            no_guarantee_reason: b.no_guarantee_reason,
            container: crate::records::stored_container(b.container.as_deref())
                .map(|kept| kept.ask),
            stop_when_idle_secs: b.stop_when_idle_secs,
            interruptions: Vec::new(),
            tier: booking::Tier::of(&b.tier, b.bid_per_gpu_hour),
            price_per_gpu_hour: b.amount_per_gpu_hour.map(|per| price.with_minor(per)),
            min_bid_per_gpu_hour_now: None,
            displacement: b.interrupted_at.map(|at| Displacement {
                at,
                booked_ends_at: b.booked_ends_at,
                refund: price.with_minor(b.refund_amount.unwrap_or(0)),
                refunded_at: b.interruption_refunded_at,
            }),
            bid_raise: None,
        })
    }
}

/// A booking made, or found again by its idempotency key.
#[derive(Debug, Clone)]
pub struct Booked {
    pub booking: Booking,
    /// The key had been used for this same request: nothing new was booked.
    pub replayed: bool,
}

impl App {
    /// Bookings as handed out: each with its listing's badge state (one lookup per listing).
    pub(crate) async fn booking_list(
        &self,
        records: Vec<BookingRecord>,
    ) -> Result<Vec<Booking>, AppError> {
        let mut listings: std::collections::HashMap<Uuid, Option<store::ListingRecord>> =
            Default::default();
        let mut out = Vec::with_capacity(records.len());
        let now = Utc::now();
        for record in records {
            let listing = match listings.get(&record.listing_id) {
                Some(found) => found.clone(),
                None => {
                    let found = self.db().listing_by_id(record.listing_id).await?;
                    listings.insert(record.listing_id, found.clone());
                    found
                }
            };
            let bid_now = match &listing {
                Some(listing) if record.status.holds_capacity() && record.ends_at > now => {
                    let span = (record.starts_at, record.ends_at);
                    self.bid_that_holds(listing, record.gpu_count, span, Some(record.id.into()))
                        .await?
                }
                _ => None,
            };
            let guarantee = self.booking_guarantee(&record).await?;
            let interruptions = self.db().interruptions_of(record.id).await?;
            let bid_raise = match record.bid_per_gpu_hour {
                Some(_) if record.payment_provider.is_some() => {
                    self.db().latest_raise_of(record.id).await?
                }
                _ => None,
            };
            let mut booking = Booking::try_from(record)?;
            booking.guarantee = guarantee;
            booking.interruptions = interruptions
                .into_iter()
                .map(|i| Interruption {
                    window_id: i.window_id,
                    from: i.starts_at,
                    until: i.ends_at,
                    refund: booking.price.with_minor(i.refund_amount),
                    refunded_at: i.refunded_at,
                })
                .collect();
            booking.min_bid_per_gpu_hour_now = bid_now;
            booking.bid_raise = bid_raise.map(BidRaise::of).transpose()?;
            booking.listing_verification_state = match &listing {
                Some(l) => Listing::try_from(l)?.verification_state,
                None => BadgeState::Unverified,
            };
            out.push(booking);
        }
        Ok(out)
    }

    pub(crate) async fn one_booking(&self, record: BookingRecord) -> Result<Booking, AppError> {
        self.booking_list(vec![record])
            .await?
            .pop()
            .ok_or(AppError::NotFound("booking"))
    }

    pub async fn create_booking(
        &self,
        caller: Caller,
        request: &BookingRequest<'_>,
    ) -> Result<Booked, AppError> {
        let key = idempotency_key(request.idempotency_key)?;
        self.require_verified_email(caller).await?;
        let fingerprint = request.fingerprint();
        let renter = caller.user_id.as_uuid();
        if let Some(existing) = self.replay(renter, key, &fingerprint).await? {
            return Ok(existing);
        }
        let now = Utc::now();
        let interval = Interval::new(request.starts_at, request.ends_at, now)?;
        let listing = self.listing_record(request.listing_id.as_uuid()).await?;
        self.require_hardware_as_claimed(&listing, false).await?;
        let gpus = gpus_of(&listing, request.gpu_count)?;
        let stop_when_idle_secs =
            booking::stop_when_idle(request.stop_when_idle_secs, request.direct_access)?;
        let container = match &request.container {
            Some(ask) => {
                let offered = crate::records::stored_containers(&listing);
                ask.check(offered.as_ref())?;
                offered.map(|o| domain::container::KeptContainer::new(ask.clone(), &o, gpus))
            }
            None => None,
        };
        let claim = interruptible::claim(
            request.tier,
            request.bid_per_gpu_hour,
            listing.min_bid_per_gpu_hour,
        )?;
        // With Stripe, the provider must be able to take the money; the booking then holds
        // its GPUs while the renter pays. Without, it is confirmed at once.
        let destination = self.payment_destination(&listing).await?;
        let listed = crate::stored_money(listing.price_amount, &listing.currency)?;
        let (per_gpu_hour, tier) = match claim {
            Claim::OnDemand => (listed, booking::Tier::OnDemand),
            Claim::Bid(bid) => (listed.with_minor(bid), booking::Tier::Interruptible { bid }),
        };
        if claim == Claim::OnDemand
            && request
                .expected_amount_per_gpu_hour
                .is_some_and(|expected| expected != listed.minor())
        {
            return Err(AppError::PriceChanged(listed));
        }
        let record = self.new_booking(
            NewBooking {
                listing: listing.id,
                renter,
                gpus,
                interval: &interval,
                per_gpu_hour,
                key,
                fingerprint: &fingerprint,
                plan: None,
                direct_access: request.direct_access,
                container,
                stop_when_idle_secs,
                tier,
            },
            destination.is_some(),
            now,
        );
        let cost = crate::stored_money(record.price_amount, &record.currency)?;
        let quota = self.renter_quota();
        // With Stripe it waits for its payment, holding its GPUs.
        let unpaid = u32::from(destination.is_some());
        let notice = self.interrupt_notice();
        let rules = |machine: &booking::Machine| {
            if claim == Claim::OnDemand {
                // Made at the price read before the lock: never at one the listing no longer
                // asks.
                booking::price_as_expected(machine, Some(per_gpu_hour))?;
            }
            let displaced =
                interruptible::admit_displacing(machine, &interval, gpus, claim, now, notice)?;
            booking::within_quota(&machine.renter_open, (&interval, gpus, unpaid), now, quota)?;
            booking::within_budget(&machine.renter_open, cost)?;
            Ok(displaced)
        };
        match self.db().book(record, now, rules).await {
            Ok((booking, displaced)) => {
                self.settle_displaced(&displaced).await;
                let booking = match destination {
                    Some(destination) => self.start_payment(&booking, destination).await?,
                    None => {
                        self.record_not_collected(&booking, &listing).await?;
                        booking
                    }
                };
                Ok(Booked {
                    booking: self.one_booking(booking).await?,
                    replayed: false,
                })
            }
            Err(BookingError::Refused(refusal)) => {
                self.note_budget_refusal(renter, &refusal, now).await;
                Err(refusal_error(refusal, now))
            }
            Err(BookingError::NoListing) => Err(AppError::NotFound("listing")),
            // A racing request with the same key won; answer as a replay would.
            Err(BookingError::KeyUsed) => {
                self.replay(renter, key, &fingerprint)
                    .await?
                    .ok_or_else(|| {
                        AppError::Internal("idempotency key conflict without a booking".into())
                    })
            }
            Err(BookingError::Store(e)) => Err(e.into()),
        }
    }

    /// A booking about to be made: its price fixed from the listing's, and, when the
    /// provider takes payments, pending until paid within the hold; else confirmed.
    pub(crate) fn new_booking(
        &self,
        b: NewBooking<'_>,
        paid: bool,
        now: DateTime<Utc>,
    ) -> BookingRecord {
        let price = booking::price(b.per_gpu_hour, b.gpus, b.interval);
        let (status, hold_expires_at, provider, fee) = if paid {
            (
                BookingStatus::PendingPayment,
                Some(
                    now + chrono::Duration::seconds(
                        self.config().payments.booking_hold_secs as i64,
                    ),
                ),
                Some("stripe".to_owned()),
                Some(self.platform_fee(price).minor()),
            )
        } else {
            (BookingStatus::Confirmed, None, None, None)
        };
        BookingRecord {
            id: Uuid::now_v7(),
            listing_id: b.listing,
            renter_id: b.renter,
            gpu_count: b.gpus,
            starts_at: b.interval.starts_at(),
            ends_at: b.interval.ends_at(),
            status: status.into(),
            price_amount: price.minor(),
            currency: price.currency().code().to_owned(),
            idempotency_key: b.key.to_owned(),
            request_hash: b.fingerprint.to_owned(),
            hold_expires_at,
            cancelled_at: None,
            refund_amount: None,
            created_at: now,
            payment_provider: provider,
            payment_intent_id: None,
            client_secret: None,
            platform_fee_amount: fee,
            payment_error: None,
            cancel_requested_at: None,
            cancel_claimed_until: None,
            plan_id: b.plan,
            direct_access: b.direct_access,
            no_guarantee_reason: None,
            container: b.container.and_then(|c| serde_json::to_string(&c).ok()),
            stop_when_idle_secs: b.stop_when_idle_secs,
            tier: b.tier.as_str().to_owned(),
            bid_per_gpu_hour: match b.tier {
                booking::Tier::Interruptible { bid } => Some(bid),
                booking::Tier::OnDemand => None,
            },
            amount_per_gpu_hour: Some(b.per_gpu_hour.minor()),
            interrupted_at: None,
            booked_ends_at: None,
            interruption_refunded_at: None,
            interruption_refund_id: None,
        }
    }

    /// What one renter may hold at once (bookings awaiting payment only where payments are
    /// taken), judged by `domain::booking::within_quota` under the renter's lock.
    pub(crate) fn renter_quota(&self) -> booking::RenterQuota {
        let limits = &self.config().limits;
        booking::RenterQuota {
            max_open: limits.max_open_bookings,
            max_gpu_hours: limits.max_booked_gpu_hours,
            max_unpaid: self
                .payments()
                .is_some()
                .then_some(limits.pending_bookings_per_renter),
        }
    }

    async fn replay(
        &self,
        renter: Uuid,
        key: &str,
        fingerprint: &str,
    ) -> Result<Option<Booked>, AppError> {
        match self.db().booking_by_key(renter, key).await? {
            Some(existing) if existing.request_hash == fingerprint => Ok(Some(Booked {
                booking: self.one_booking(existing).await?,
                replayed: true,
            })),
            Some(_) => Err(AppError::IdempotencyKeyReused),
            None => Ok(None),
        }
    }

    /// A booking, for its renter and for members of the provider organisation. Anyone else
    /// is told it does not exist.
    pub async fn booking(
        &self,
        caller: Caller,
        id: domain::BookingId,
    ) -> Result<Booking, AppError> {
        let mut booking = self
            .one_booking(self.booking_record(caller, id.as_uuid()).await?)
            .await?;
        if booking.renter_id != caller.user_id {
            booking.hide_payment_secrets();
        }
        Ok(booking)
    }

    pub(crate) async fn booking_record(
        &self,
        caller: Caller,
        id: Uuid,
    ) -> Result<BookingRecord, AppError> {
        let booking = self
            .db()
            .booking_by_id(id)
            .await?
            .ok_or(AppError::NotFound("booking"))?;
        if booking.renter_id == caller.user_id.as_uuid() {
            return Ok(booking);
        }
        let listing = self.listing(booking.listing_id.into()).await?;
        match self
            .db()
            .role_in_org(listing.org_id, caller.user_id)
            .await?
        {
            Some(_) => Ok(booking),
            None => Err(AppError::NotFound("booking")),
        }
    }

    /// The caller's bookings as a renter, newest first; `before` continues a listing.
    pub async fn my_bookings(
        &self,
        caller: Caller,
        before: Option<domain::BookingId>,
        limit: u64,
    ) -> Result<Vec<Booking>, AppError> {
        self.booking_list(
            self.db()
                .bookings_of_renter(caller.user_id.as_uuid(), before.map(Into::into), limit)
                .await?,
        )
        .await
    }

    /// Bookings of a listing, for members of its organisation.
    pub async fn listing_bookings(
        &self,
        caller: Caller,
        listing: domain::ListingId,
        before: Option<domain::BookingId>,
        limit: u64,
    ) -> Result<Vec<Booking>, AppError> {
        let found = self.listing(listing).await?;
        self.require_role(caller, found.org_id, domain::Role::Member)
            .await?;
        let mut found = self
            .booking_list(
                self.db()
                    .bookings_of_listing(listing.as_uuid(), before.map(Into::into), limit)
                    .await?,
            )
            .await?;
        for booking in &mut found {
            booking.hide_payment_secrets();
        }
        Ok(found)
    }
}

/// `gpu_count` GPUs of `listing`, checked: 1 to the machine's GPUs.
pub(crate) fn gpus_of(listing: &store::ListingRecord, gpu_count: i64) -> Result<i32, AppError> {
    if gpu_count < 1 || gpu_count > i64::from(listing.gpu_count) {
        return Err(ValidationError::new(
            "gpu_count",
            format!(
                "must be between 1 and the machine's {} GPUs",
                listing.gpu_count
            ),
        )
        .into());
    }
    Ok(i32::try_from(gpu_count).unwrap_or(i32::MAX))
}

/// An `Idempotency-Key` as sent, trimmed: 1 to 255 printable characters.
pub(crate) fn idempotency_key(raw: &str) -> Result<&str, AppError> {
    let key = raw.trim();
    if key.is_empty() || key.len() > 255 || key.chars().any(char::is_control) {
        return Err(ValidationError::new(
            "Idempotency-Key",
            "must be 1 to 255 printable characters",
        )
        .into());
    }
    Ok(key)
}

/// What a refusal of capacity or quota tells the renter.
pub fn refusal_error(refusal: Refusal, now: DateTime<Utc>) -> AppError {
    match refusal {
        Refusal::Quota {
            kind,
            limit,
            frees_at,
        } => AppError::RateLimited {
            what: match kind {
                booking::QuotaKind::OpenBookings => format!(
                    "you hold {limit} bookings that have not ended (max_open_bookings); \
                     cancel one or wait until one ends"
                ),
                booking::QuotaKind::GpuHours => format!(
                    "with this booking you would hold more than {limit} GPU-hours ahead \
                     (max_booked_gpu_hours)"
                ),
                booking::QuotaKind::Unpaid => format!(
                    "at most {limit} bookings may wait for their payment at once \
                     (pending_bookings_per_renter), and this would make more wait; pay or \
                     cancel one first"
                ),
            },
            retry_after_secs: (frees_at - now).num_seconds().clamp(1, 3600) as u64,
        },
        Refusal::TooLarge { max_gpu_hours } => ValidationError::new(
            "ends_at",
            format!(
                "a booking may hold at most {max_gpu_hours} GPU-hours \
                 (max_booked_gpu_hours); book fewer GPUs or a shorter interval"
            ),
        )
        .into(),
        Refusal::Budget { left } => AppError::BudgetExceeded(left),
        Refusal::Delisted => AppError::ListingDelisted,
        Refusal::PriceChanged { now } => AppError::PriceChanged(now),
        Refusal::OutsideWindow { from, until } => {
            let show = |t: Option<DateTime<Utc>>, open: &str| {
                t.map_or_else(|| open.to_owned(), |t| t.to_rfc3339())
            };
            AppError::OutsideAvailability(format!(
                "from {} until {}",
                show(from, "any time"),
                show(until, "open end")
            ))
        }
        Refusal::Capacity => AppError::BookingConflict,
        Refusal::NoticeNeeded { earliest } => AppError::NoticeNeeded(earliest),
        Refusal::NotInterruptible => {
            ValidationError::new("tier", "the listing takes no interruptible bookings").into()
        }
        Refusal::BidTooLow { min } => ValidationError::new(
            "bid_per_gpu_hour",
            format!(
                "must be at least the listing's min_bid_per_gpu_hour ({})",
                min.minor()
            ),
        )
        .into(),
        Refusal::Maintenance { from, until } => AppError::Maintenance(format!(
            "from {} until {}",
            from.to_rfc3339(),
            until.to_rfc3339()
        )),
    }
}
