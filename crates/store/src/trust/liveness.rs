//! Liveness: which machines' engines answer. Probes are claimed by moving a listing's
//! `probe_due_at` a period ahead, so however many workers probe, one machine is probed once
//! a period. Observations (a probe's, or a gateway request's that could not reach the
//! engine) extend or change the listing's timeline (`liveness_spans`) under the listing's
//! lock, and its 30-day uptime (`reliability`) is worked out again with them.

use chrono::{DateTime, Duration, Utc};
use domain::uptime::{self, Span, Step, Window};
use sea_orm::sea_query::{Expr, Func};
use sea_orm::{
    ActiveModelTrait, ActiveValue::Set, ColumnTrait, Condition, ConnectionTrait, EntityTrait,
    QueryFilter, QueryOrder, QuerySelect,
};
use uuid::Uuid;

use crate::WindowRecord;
use crate::capacity::lock_listing;
use crate::entities::{listings, liveness_spans, maintenance_windows, uptime_statements};
use crate::status::listing_status;
use crate::{Db, ListingRecord, StoreError};

/// A claimed probe: the listing whose engine to probe.
pub type ProbeClaim = ListingRecord;

/// What one observation changed.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Observed {
    /// The state before, when there was one.
    pub was: Option<bool>,
    /// The state now.
    pub up: bool,
    pub reliability: Option<f64>,
}

impl Observed {
    /// Whether the machine went from up to down or back.
    pub fn flipped(&self) -> bool {
        self.was.is_some_and(|was| was != self.up)
    }
}

/// How far back reliability looks.
pub const RELIABILITY_DAYS: i64 = 30;

fn span_of(record: &liveness_spans::Model) -> Span {
    Span {
        up: record.up,
        from: record.started_at,
        until: record.ended_at,
    }
}

/// A window as uptime judges it: in time when announced `notice` ahead of its start.
pub fn window_of(record: &WindowRecord, notice: Duration) -> Window {
    Window {
        from: record.starts_at,
        until: record.ends_at,
        in_time: uptime::in_time(record.created_at, record.starts_at, notice),
    }
}

/// Probes due: the listing's first, or its period came round.
fn due(now: DateTime<Utc>) -> Condition {
    Condition::any()
        .add(listings::Column::ProbeDueAt.is_null())
        .add(listings::Column::ProbeDueAt.lte(now))
}

async fn spans_over(
    conn: &impl ConnectionTrait,
    listing: Uuid,
    from: DateTime<Utc>,
    to: DateTime<Utc>,
) -> Result<Vec<Span>, StoreError> {
    Ok(liveness_spans::Entity::find()
        .filter(liveness_spans::Column::ListingId.eq(listing))
        .filter(liveness_spans::Column::EndedAt.gte(from))
        .filter(liveness_spans::Column::StartedAt.lt(to))
        .order_by_asc(liveness_spans::Column::StartedAt)
        .all(conn)
        .await?
        .iter()
        .map(span_of)
        .collect())
}

async fn windows_between(
    conn: &impl ConnectionTrait,
    listing: Uuid,
    from: DateTime<Utc>,
    to: DateTime<Utc>,
) -> Result<Vec<WindowRecord>, StoreError> {
    use maintenance_windows::Column as W;
    Ok(maintenance_windows::Entity::find()
        .filter(W::ListingId.eq(listing))
        .filter(W::EndsAt.gt(from))
        .filter(W::StartsAt.lt(to))
        .order_by_asc(W::StartsAt)
        .all(conn)
        .await?)
}

impl Db {
    /// Claims up to `limit` due probes of active listings, the longest due first: each
    /// claimed listing's next probe is moved to `next_due()`, and only a claim that moved it
    /// counts (a racing worker's claim moved it first).
    pub async fn claim_probes(
        &self,
        now: DateTime<Utc>,
        limit: u64,
        next_due: impl Fn() -> DateTime<Utc>,
    ) -> Result<Vec<ProbeClaim>, StoreError> {
        use listings::Column as L;
        let candidates = listings::Entity::find()
            .filter(L::Status.eq(listing_status::ACTIVE))
            .filter(due(now))
            .order_by_asc(Func::coalesce([
                Expr::col(L::ProbeDueAt),
                Expr::val(DateTime::<Utc>::UNIX_EPOCH),
            ]))
            .order_by_asc(L::Id)
            .limit(limit)
            .all(self.conn())
            .await?;
        let mut claimed = Vec::with_capacity(candidates.len());
        for listing in candidates {
            let moved = listings::Entity::update_many()
                .col_expr(L::ProbeDueAt, Expr::value(next_due()))
                .filter(L::Id.eq(listing.id))
                .filter(due(now))
                .exec(self.conn())
                .await?;
            if moved.rows_affected == 1 {
                claimed.push(listing);
            }
        }
        Ok(claimed)
    }

    /// Brings `listing`'s next probe forward to `at` (when it was due later).
    pub async fn probe_soon(&self, listing: Uuid, at: DateTime<Utc>) -> Result<(), StoreError> {
        use listings::Column as L;
        listings::Entity::update_many()
            .col_expr(L::ProbeDueAt, Expr::value(at))
            .filter(L::Id.eq(listing))
            .filter(L::ProbeDueAt.gt(at))
            .exec(self.conn())
            .await?;
        Ok(())
    }

    /// How many listings are probed: the active ones.
    pub async fn probed_listings(&self) -> Result<u64, StoreError> {
        use sea_orm::PaginatorTrait;
        Ok(listings::Entity::find()
            .filter(listings::Column::Status.eq(listing_status::ACTIVE))
            .count(self.conn())
            .await?)
    }

    /// Records that `listing`'s engine was `up` (or not) at `at`, and works its reliability
    /// out again (the 30 days to `at`; windows announced `notice` ahead left out, later ones
    /// counted as down). Observations further apart than `gap` leave the time between them
    /// unknown. `None` when the listing is gone, or the observation is older than the last.
    pub async fn record_liveness(
        &self,
        listing: Uuid,
        up: bool,
        at: DateTime<Utc>,
        (gap, notice): (Duration, Duration),
    ) -> Result<Option<Observed>, StoreError> {
        let _search = self.search_touch();
        let txn = self.write().await?;
        if !lock_listing(&txn, listing).await? {
            return Ok(None);
        }
        let latest = liveness_spans::Entity::find()
            .filter(liveness_spans::Column::ListingId.eq(listing))
            .order_by_desc(liveness_spans::Column::StartedAt)
            .order_by_desc(liveness_spans::Column::Id)
            .one(&txn)
            .await?;
        let step = uptime::observe(latest.as_ref().map(span_of).as_ref(), up, at, gap);
        let end = |id: Uuid, until: DateTime<Utc>| {
            liveness_spans::Entity::update_many()
                .col_expr(liveness_spans::Column::EndedAt, Expr::value(until))
                .filter(liveness_spans::Column::Id.eq(id))
        };
        let start = || liveness_spans::ActiveModel {
            id: Set(Uuid::now_v7()),
            listing_id: Set(listing),
            up: Set(up),
            started_at: Set(at),
            ended_at: Set(at),
        };
        match (step, &latest) {
            (Step::Stale, _) => return Ok(None),
            (Step::Extend { until }, Some(span)) => {
                end(span.id, until).exec(&txn).await?;
            }
            (Step::Change { at }, Some(span)) => {
                end(span.id, at).exec(&txn).await?;
                start().insert(&txn).await?;
            }
            _ => {
                start().insert(&txn).await?;
            }
        }
        let record = listings::Entity::find_by_id(listing)
            .one(&txn)
            .await?
            .ok_or_else(|| StoreError::Corrupt(format!("listing {listing} vanished")))?;
        let was = record.liveness_state.as_deref().map(|s| s == "up");
        let from = at - Duration::days(RELIABILITY_DAYS);
        let spans = spans_over(&txn, listing, from, at).await?;
        let windows: Vec<Window> = windows_between(&txn, listing, from, at)
            .await?
            .iter()
            .map(|w| window_of(w, notice))
            .collect();
        let reliability = uptime::uptime(&spans, &windows, from, at);
        let mut update = listings::Entity::update_many()
            .col_expr(listings::Column::Reliability, Expr::value(reliability))
            .filter(listings::Column::Id.eq(listing));
        if was != Some(up) {
            update = update
                .col_expr(
                    listings::Column::LivenessState,
                    Expr::value(if up { "up" } else { "down" }),
                )
                .col_expr(listings::Column::LivenessSince, Expr::value(at));
        }
        update.exec(&txn).await?;
        if was != Some(up) {
            let event = domain::webhook::Event::liveness(listing, up, at);
            crate::outbox::emit(&txn, &event, at).await?;
        }
        txn.commit().await?;
        Ok(Some(Observed {
            was,
            up,
            reliability,
        }))
    }

    /// A listing's timeline and windows over `[from, to)`: what its uptime is computed from.
    pub async fn uptime_facts(
        &self,
        listing: Uuid,
        from: DateTime<Utc>,
        to: DateTime<Utc>,
    ) -> Result<(Vec<Span>, Vec<WindowRecord>), StoreError> {
        Ok((
            spans_over(self.conn(), listing, from, to).await?,
            windows_between(self.conn(), listing, from, to).await?,
        ))
    }
}

/// A signed uptime statement as stored.
pub type UptimeStatementRecord = uptime_statements::Model;

impl Db {
    /// Listings observed during `[start, end)` that have no uptime statement for the period
    /// starting at `start` yet (at most `limit`).
    pub async fn listings_to_attest(
        &self,
        (start, end): (DateTime<Utc>, DateTime<Utc>),
        limit: u64,
    ) -> Result<Vec<Uuid>, StoreError> {
        let attested = sea_orm::sea_query::Query::select()
            .column(uptime_statements::Column::ListingId)
            .from(uptime_statements::Entity)
            .and_where(uptime_statements::Column::PeriodStart.eq(start))
            .to_owned();
        Ok(liveness_spans::Entity::find()
            .select_only()
            .column(liveness_spans::Column::ListingId)
            .distinct()
            .filter(liveness_spans::Column::StartedAt.lt(end))
            // A span that ends where the period starts tells nothing of it.
            .filter(liveness_spans::Column::EndedAt.gt(start))
            .filter(liveness_spans::Column::ListingId.not_in_subquery(attested))
            .order_by_asc(liveness_spans::Column::ListingId)
            .limit(limit)
            .into_tuple()
            .all(self.conn())
            .await?)
    }

    /// Stores a statement and appends its log leaf in one transaction; `None` when the
    /// listing's period already has one (another replica signed it first: nothing is logged).
    pub async fn insert_uptime_statement(
        &self,
        record: UptimeStatementRecord,
        leaf: Vec<u8>,
    ) -> Result<Option<u64>, StoreError> {
        let txn = self.write().await?;
        let (id, created_at) = (record.id, record.created_at);
        let inserted = uptime_statements::Entity::insert(
            uptime_statements::ActiveModel::from(record).reset_all(),
        )
        .on_conflict(
            sea_orm::sea_query::OnConflict::columns([
                uptime_statements::Column::ListingId,
                uptime_statements::Column::PeriodStart,
            ])
            .do_nothing()
            .to_owned(),
        )
        .exec_without_returning(&txn)
        .await?;
        if inserted == 0 {
            return Ok(None);
        }
        let index = crate::trust::transparency::append(
            &txn,
            crate::NewLeaf {
                report_id: id,
                kind: "uptime".to_owned(),
                leaf,
                private: false,
                created_at,
            },
        )
        .await?;
        txn.commit().await?;
        Ok(Some(index))
    }

    /// A listing's latest `limit` statements, newest first.
    pub async fn uptime_statements(
        &self,
        listing: Uuid,
        limit: u64,
    ) -> Result<Vec<UptimeStatementRecord>, StoreError> {
        Ok(uptime_statements::Entity::find()
            .filter(uptime_statements::Column::ListingId.eq(listing))
            .order_by_desc(uptime_statements::Column::PeriodStart)
            .limit(limit)
            .all(self.conn())
            .await?)
    }
}
