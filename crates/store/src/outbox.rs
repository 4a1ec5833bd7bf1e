//! The outbox, below every change that tells of itself: an event is written with [`emit`]
//! **inside the change's own transaction**, so it exists exactly when the change does, and a
//! crash between the commit and the send loses nothing. Sending is `webhooks.rs`'s.

use chrono::{DateTime, Utc};
use domain::webhook::{Audience, BookingFacts, Event, EventKind};
use domain::{Currency, Money};
use sea_orm::{ActiveValue::Set, ConnectionTrait, EntityTrait, QuerySelect};
use uuid::Uuid;

use crate::StoreError;
use crate::entities::{bookings, listings, webhook_events};

/// Writes an event to the outbox, in the caller's transaction: the event exists exactly when
/// the change that tells of it does. Its audience says whose endpoints hear of it (a listing's
/// events reach the organisation it belongs to, as of now).
pub(crate) async fn emit(
    conn: &impl ConnectionTrait,
    event: &Event,
    at: DateTime<Utc>,
) -> Result<Uuid, StoreError> {
    let (renter, org, endpoint) = match event.audience() {
        Audience::Booking { renter, listing } => (Some(renter), org_of(conn, listing).await?, None),
        Audience::Listing(listing) => (None, org_of(conn, listing).await?, None),
        Audience::Org(org) => (None, Some(org), None),
        Audience::Endpoint(endpoint) => (None, None, Some(endpoint)),
        Audience::User(user) => (Some(user), None, None),
    };
    let data = serde_json::to_string(event)
        .map_err(|e| StoreError::Corrupt(format!("an event's payload: {e}")))?;
    insert_event(conn, event.kind(), (renter, org, endpoint), data, at).await
}

/// Writes an event of `kind` heard by the given renter's, organisation's or endpoint's
/// endpoints, with its payload already serialised.
pub(crate) async fn insert_event(
    conn: &impl ConnectionTrait,
    kind: EventKind,
    (renter, org, endpoint): (Option<Uuid>, Option<Uuid>, Option<Uuid>),
    data: String,
    at: DateTime<Utc>,
) -> Result<Uuid, StoreError> {
    let id = Uuid::now_v7();
    webhook_events::Entity::insert(webhook_events::ActiveModel {
        id: Set(id),
        kind: Set(kind.as_str().to_owned()),
        renter_id: Set(renter),
        org_id: Set(org),
        endpoint_id: Set(endpoint),
        data: Set(data),
        occurred_at: Set(at),
        fanned_out: Set(false),
    })
    .exec_without_returning(conn)
    .await?;
    Ok(id)
}

/// The organisation a listing belongs to.
async fn org_of(conn: &impl ConnectionTrait, listing: Uuid) -> Result<Option<Uuid>, StoreError> {
    Ok(listings::Entity::find_by_id(listing)
        .select_only()
        .column(listings::Column::OrgId)
        .into_tuple()
        .one(conn)
        .await?)
}

/// A stored booking as its events tell of it.
pub(crate) fn booking_facts(booking: &bookings::Model) -> Result<BookingFacts, StoreError> {
    Ok(BookingFacts {
        booking_id: booking.id,
        listing_id: booking.listing_id,
        renter_id: booking.renter_id,
        status: *booking.status,
        gpu_count: booking.gpu_count,
        starts_at: booking.starts_at,
        ends_at: booking.ends_at,
    })
}

/// An amount in a stored booking's currency.
pub(crate) fn booking_money(booking: &bookings::Model, minor: i64) -> Result<Money, StoreError> {
    let currency = Currency::parse("currency", &booking.currency)
        .map_err(|e| StoreError::Corrupt(format!("booking {}: {e}", booking.id)))?;
    Ok(Money::new(minor, currency))
}
