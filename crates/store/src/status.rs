//! The stored names of the domain's life-cycle states, and the status sets of queries derived
//! from its table of moves (`domain` owns both).

use std::ops::Deref;

use domain::status::{LifeCycle, StatusError};
use sea_orm::sea_query::{ArrayType, ColumnType, Nullable, StringLen, ValueType, ValueTypeErr};
use sea_orm::{ColIdx, DbErr, QueryResult, TryGetError, TryGetable, Value};

/// A life-cycle state as a stored record carries it: the domain's enum (`Stored<BookingStatus>`
/// derefs to a `BookingStatus`), read and written as its name. A name this version does not
/// know makes the row unreadable (a corrupt row, never a guess).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Stored<S>(pub S);

impl<S> Deref for Stored<S> {
    type Target = S;

    fn deref(&self) -> &S {
        &self.0
    }
}

impl<S> From<S> for Stored<S> {
    fn from(state: S) -> Self {
        Self(state)
    }
}

impl<S: PartialEq> PartialEq<S> for Stored<S> {
    fn eq(&self, other: &S) -> bool {
        self.0 == *other
    }
}

impl<S: LifeCycle> From<Stored<S>> for Value {
    fn from(state: Stored<S>) -> Self {
        state.0.name().into()
    }
}

/// Written as its stored name (a person's export of their records).
impl<S: LifeCycle> serde::Serialize for Stored<S> {
    fn serialize<Z: serde::Serializer>(&self, serializer: Z) -> Result<Z::Ok, Z::Error> {
        serializer.serialize_str(self.0.name())
    }
}

impl<S: LifeCycle> TryGetable for Stored<S> {
    fn try_get_by<I: ColIdx>(res: &QueryResult, idx: I) -> Result<Self, TryGetError> {
        let name = String::try_get_by(res, idx)?;
        S::parse(&name).map(Stored).map_err(|e: StatusError| {
            TryGetError::DbErr(DbErr::Type(format!("a stored state: {e}")))
        })
    }
}

impl<S: LifeCycle> ValueType for Stored<S> {
    fn try_from(v: Value) -> Result<Self, ValueTypeErr> {
        let name = <String as ValueType>::try_from(v)?;
        S::parse(&name).map(Stored).map_err(|_| ValueTypeErr)
    }

    fn type_name() -> String {
        "Stored".to_owned()
    }

    fn array_type() -> ArrayType {
        ArrayType::String
    }

    fn column_type() -> ColumnType {
        ColumnType::String(StringLen::None)
    }
}

impl<S: LifeCycle> Nullable for Stored<S> {
    fn null() -> Value {
        Value::String(None)
    }
}

impl<S: LifeCycle> sea_orm::IntoActiveValue<Stored<S>> for Stored<S> {
    fn into_active_value(self) -> sea_orm::ActiveValue<Stored<S>> {
        sea_orm::ActiveValue::Set(self)
    }
}

/// The stored names of `domain::ListingStatus` (which owns them), for queries.
pub mod listing_status {
    use domain::ListingStatus;
    pub const ACTIVE: &str = ListingStatus::Active.as_str();
    pub const DELISTED: &str = ListingStatus::Delisted.as_str();
}

/// The stored names of `domain::RunStatus` (which owns them), for queries.
pub mod run_status {
    use domain::RunStatus;
    pub const QUEUED: &str = RunStatus::Queued.as_str();
    pub const RUNNING: &str = RunStatus::Running.as_str();
    pub const SUCCEEDED: &str = RunStatus::Succeeded.as_str();
    pub const FAILED: &str = RunStatus::Failed.as_str();
    pub const CANCELLED: &str = RunStatus::Cancelled.as_str();
}

/// The stored names of `domain::BookingStatus` (which owns them), for queries.
pub mod booking_status {
    use domain::BookingStatus;
    pub const PENDING_PAYMENT: &str = BookingStatus::PendingPayment.as_str();
    pub const CONFIRMED: &str = BookingStatus::Confirmed.as_str();
    pub const ACTIVE: &str = BookingStatus::Active.as_str();
    pub const COMPLETED: &str = BookingStatus::Completed.as_str();
    pub const CANCELLED: &str = BookingStatus::Cancelled.as_str();
    pub const EXPIRED: &str = BookingStatus::Expired.as_str();
    pub const INTERRUPTING: &str = BookingStatus::Interrupting.as_str();
    pub const INTERRUPTED: &str = BookingStatus::Interrupted.as_str();
    /// Those that give access over their interval (`BookingStatus::gives_access`).
    pub const GIVING_ACCESS: [&str; 3] = [CONFIRMED, ACTIVE, INTERRUPTING];
}

/// The stored names of a bid raise's statuses.
pub mod raise_status {
    /// Charged, waiting for its payment: the old bid holds until then.
    pub const PENDING_PAYMENT: &str = "pending_payment";
    /// Paid and in force.
    pub const PAID: &str = "paid";
    /// Not paid before its hold expired; its PaymentIntent cancelled.
    pub const EXPIRED: &str = "expired";
    /// Replaced by a later raise before it was paid; its PaymentIntent cancelled.
    pub const CANCELLED: &str = "cancelled";
    /// Its PaymentIntent could not be made, or its payment failed.
    pub const FAILED: &str = "failed";
    /// Paid once it could no longer hold (the booking displaced, cancelled or over, or its
    /// price changed meanwhile): refunded in full.
    pub const REFUNDED: &str = "refunded";
}

/// The stored names of `domain::BadgeState` (which owns them; `NULL`: unverified), for
/// queries.
pub mod badge_state {
    use domain::BadgeState;
    pub const VERIFIED: &str = BadgeState::Verified.as_str();
    pub const EXPIRED: &str = BadgeState::Expired.as_str();
    pub const DEMOTED: &str = BadgeState::Demoted.as_str();
}

/// `column IN (…)` of every status the life cycle lets become `next`: the rows an update to
/// `next` may move. Derived from the domain's table of moves, never picked by hand.
pub(crate) fn may_become<S: LifeCycle>(
    column: impl sea_orm::ColumnTrait,
    next: S,
) -> sea_orm::sea_query::SimpleExpr {
    column.is_in(S::sources_of(next).into_iter().map(LifeCycle::name))
}

/// `column IN (…)` of the statuses some move leads out of: a thing that is not over yet.
pub(crate) fn is_open<S: LifeCycle>(
    column: impl sea_orm::ColumnTrait,
) -> sea_orm::sea_query::SimpleExpr {
    column.is_in(S::open().into_iter().map(LifeCycle::name))
}

/// An update that moves rows to `next`: `SET status = next`, `WHERE status IN` every status
/// the life cycle lets become `next` — the move checked by the table, in the database, under
/// whatever else the update filters on.
pub(crate) fn move_to<E: sea_orm::EntityTrait, S: LifeCycle>(
    update: sea_orm::UpdateMany<E>,
    column: E::Column,
    next: S,
) -> sea_orm::UpdateMany<E> {
    use sea_orm::QueryFilter;
    update
        .col_expr(column, sea_orm::sea_query::Expr::value(next.name()))
        .filter(may_become(column, next))
}
