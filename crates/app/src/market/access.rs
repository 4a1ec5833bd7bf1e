//! Access to what was rented. A confirmed booking's renter gets the machine's connection
//! details and a bearer token for it; the provider's machine asks whether a token is good
//! (RFC 7662 introspection) with its organisation's API key.
//!
//! Tokens are HS256 JWTs under a key derived from the server secret for this use alone,
//! with their own audience, so they can never pass as API access tokens (nor the reverse).
//! They are stateless: nothing secret is stored, and whether one is *active* is decided at
//! introspection from the booking itself — its status (a cancelled booking's tokens stop
//! working at once) and its interval `[starts_at, ends_at)` — and from its machine's
//! maintenance windows (none is active over one).

use chrono::{DateTime, Utc};
use store::BookingRecord;

use crate::{App, AppError, Caller, Credential};

pub use crate::access_keys::{AUDIENCE, PREFIX};

/// What the renter needs to use the machine. Its `Debug` never prints the token.
#[derive(Clone)]
pub struct BookingAccess {
    pub booking: crate::market::bookings::Booking,
    pub listing: crate::market::listings::Listing,
    /// A bearer token the machine accepts from `starts_at` to `ends_at`.
    pub token: String,
}

impl std::fmt::Debug for BookingAccess {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("BookingAccess")
            .field("booking", &self.booking.id)
            .field("listing", &self.listing.id)
            .finish_non_exhaustive()
    }
}

/// The answer to an introspection: `None` is `{"active": false}`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Introspection {
    pub active: Option<ActiveToken>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ActiveToken {
    pub booking_id: domain::BookingId,
    pub listing_id: domain::ListingId,
    pub renter_id: domain::UserId,
    pub gpu_count: i32,
    pub nbf: i64,
    pub exp: i64,
}

/// Whether a booking gives access at `now`.
pub(crate) fn grants_access(booking: &BookingRecord, now: DateTime<Utc>) -> bool {
    booking.status.gives_access() && booking.starts_at <= now && now < booking.ends_at
}

impl App {
    /// The machine's connection details and a fresh access token, for the booking's renter
    /// once it is confirmed. The provider may read the booking but not act as its renter.
    pub async fn booking_access(
        &self,
        caller: Caller,
        id: domain::BookingId,
    ) -> Result<BookingAccess, AppError> {
        let booking = self.booking_record(caller, id.as_uuid()).await?;
        if booking.renter_id != caller.user_id.as_uuid() {
            return Err(AppError::Forbidden(
                "only the booking's renter gets access to the machine".into(),
            ));
        }
        if !booking.status.gives_access() {
            return Err(AppError::BookingNotActive(booking.status.to_string()));
        }
        let listing = self.listing_record(booking.listing_id).await?;
        let token = self.tokens().access.issue(&booking, Utc::now())?;
        let mut listing: crate::market::listings::Listing = listing.try_into()?;
        let agent = self.db().listing_agent(booking.listing_id).await?.is_some();
        if !booking.direct_access {
            // Waived: only the gateway reaches the engine.
            (listing.ssh, listing.https_url) = (None, None);
        } else if booking.container.is_some() {
            // A container is entered over the machine's SSH through its agent, as the
            // booking's entry account (forced into the container); its engine's own address
            // is the machine's, not the container's, so it is not handed out.
            listing.https_url = None;
            match (&mut listing.ssh, agent) {
                (Some(ssh), true) => ssh.user = domain::agent::booking_account(booking.id),
                _ => listing.ssh = None,
            }
        } else if booking.gpu_count >= listing.gpu_count
            && agent
            && let Some(ssh) = &mut listing.ssh
        {
            // The machine's agent makes the whole-machine booking its own account.
            ssh.user = domain::agent::booking_account(booking.id);
        }
        let mut booking: crate::market::bookings::Booking = booking.try_into()?;
        booking.listing_verification_state = listing.verification_state;
        Ok(BookingAccess {
            booking,
            listing,
            token,
        })
    }

    /// Introspects a booking access token for a provider's machine. The caller must use an
    /// API key of a member of the organisation that owns the booked listing; a token for
    /// another organisation's machine is refused.
    pub async fn introspect(&self, caller: Caller, token: &str) -> Result<Introspection, AppError> {
        let Credential::OrgKey { org, scopes, .. } = caller.via else {
            return Err(AppError::ScopeRequired(
                "introspection takes an organisation API key with the access:introspect scope"
                    .into(),
            ));
        };
        if !scopes.contains(domain::KeyScope::AccessIntrospect) {
            return Err(AppError::ScopeRequired(
                "this key lacks the access:introspect scope".into(),
            ));
        }
        let inactive = Introspection { active: None };
        let Some(booking_id) = self.tokens().access.booking_of(token) else {
            return Ok(inactive);
        };
        let Some(booking) = self.db().booking_by_id(booking_id).await? else {
            return Ok(inactive);
        };
        let listing = self.listing(booking.listing_id.into()).await?;
        if listing.org_id != org {
            // Another organisation's machine: to this key, the token is simply not active
            // (a 403 would tell it the token is valid somewhere).
            return Ok(inactive);
        }
        let now = Utc::now();
        if !grants_access(&booking, now) {
            return Ok(inactive);
        }
        if !self
            .db()
            .in_maintenance(&[booking.listing_id], now)
            .await?
            .is_empty()
        {
            // A maintenance window interrupts it: no access over the window.
            return Ok(inactive);
        }
        Ok(Introspection {
            active: Some(ActiveToken {
                booking_id: booking.id.into(),
                listing_id: booking.listing_id.into(),
                renter_id: booking.renter_id.into(),
                gpu_count: booking.gpu_count,
                nbf: booking.starts_at.timestamp(),
                exp: booking.ends_at.timestamp(),
            }),
        })
    }
}
