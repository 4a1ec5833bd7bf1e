//! The stored names of the domain's life-cycle states, and the status sets of queries derived
//! from its table of moves (`domain` owns both).

use domain::status::LifeCycle;

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
