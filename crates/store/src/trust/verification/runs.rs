//! Verification runs (the database is their source of truth; queues only deliver ids), the
//! lease a worker holds while it runs one, and the events of a run.

use chrono::{DateTime, Utc};
use domain::RunStatus;
use domain::quota::RollingDay;
use domain::webhook::{Event, RunEnded};
use sea_orm::sea_query::{Expr, ExprTrait, Func};
use sea_orm::{
    ActiveValue::Set, ColumnTrait, Condition, EntityTrait, QueryFilter, QueryOrder, QuerySelect,
    UpdateMany,
};
use uuid::Uuid;

use crate::entities::{run_events, runs};
use crate::status::{is_open, may_become, move_to, run_status};
use crate::trust::runs::{RunRecord, insert_run_in};
use crate::{Db, StoreError};

/// The kind of a run's last event.
pub const RUN_FINISHED: &str = "run_finished";

pub type EventRecord = run_events::Model;

/// An update of runs that also drops whatever lease they hold.
fn without_lease(update: UpdateMany<runs::Entity>) -> UpdateMany<runs::Entity> {
    update
        .col_expr(
            runs::Column::LeaseOwner,
            Expr::value(Option::<String>::None),
        )
        .col_expr(
            runs::Column::LeaseExpiresAt,
            Expr::value(Option::<DateTime<Utc>>::None),
        )
}

/// A daily quota already spent: how many counted, and when one more fits.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct OverDailyQuota {
    pub counted: usize,
    pub frees_at: DateTime<Utc>,
}

impl Db {
    pub async fn insert_run(&self, run: RunRecord) -> Result<RunRecord, StoreError> {
        let id = run.id;
        insert_run_in(self.conn(), run).await?;
        self.run_by_id(id)
            .await?
            .ok_or_else(|| StoreError::Corrupt(format!("run {id} vanished after insert")))
    }

    /// The listing's queued or running verification, if any (there is at most one).
    pub async fn open_run_of_listing(
        &self,
        listing: Uuid,
    ) -> Result<Option<RunRecord>, StoreError> {
        Ok(runs::Entity::find()
            .filter(runs::Column::ListingId.eq(listing))
            .filter(runs::Column::Kind.eq("verification"))
            .filter(is_open::<RunStatus>(runs::Column::Status))
            .one(self.conn())
            .await?)
    }

    /// Inserts an organisation's verification run unless it spent `quota` of its verification
    /// budget (runs and its members' preflights) within the day; then answers how much, and
    /// inserts nothing.
    /// The organisation's row is locked first, so racing requests cannot all see room.
    pub async fn insert_run_within(
        &self,
        run: RunRecord,
        quota: RollingDay,
    ) -> Result<Result<RunRecord, OverDailyQuota>, StoreError> {
        let (id, org, now) = (run.id, run.org_id, run.created_at);
        let txn = self.write().await?;
        crate::identity::orgs::lock_org(&txn, org).await?;
        if let Err(over) =
            crate::trust::preflights::verification_budget_admits(&txn, org, quota, now).await?
        {
            return Ok(Err(over));
        }
        insert_run_in(&txn, run).await?;
        txn.commit().await?;
        let inserted = self
            .run_by_id(id)
            .await?
            .ok_or_else(|| StoreError::Corrupt(format!("run {id} vanished after insert")))?;
        Ok(Ok(inserted))
    }

    pub async fn run_by_id(&self, id: Uuid) -> Result<Option<RunRecord>, StoreError> {
        Ok(runs::Entity::find_by_id(id).one(self.conn()).await?)
    }

    /// Takes the run for `owner` until `lease_until`, when it is queued or its previous
    /// holder's lease has run out. Atomic: of racing workers exactly one gets it.
    pub async fn claim_run(
        &self,
        id: Uuid,
        owner: &str,
        lease_until: DateTime<Utc>,
        now: DateTime<Utc>,
    ) -> Result<Option<RunRecord>, StoreError> {
        // A queued run moves to running; a running one whose lease ran out is taken over (it
        // stays running, in another worker's hands: no move of its life cycle).
        let claimable = Condition::any()
            .add(may_become(runs::Column::Status, RunStatus::Running))
            .add(
                Condition::all()
                    .add(runs::Column::Status.eq(run_status::RUNNING))
                    .add(runs::Column::LeaseExpiresAt.lt(now)),
            );
        let result = runs::Entity::update_many()
            .col_expr(runs::Column::Status, Expr::value(run_status::RUNNING))
            .col_expr(runs::Column::LeaseOwner, Expr::value(owner))
            .col_expr(runs::Column::LeaseExpiresAt, Expr::value(lease_until))
            .col_expr(
                runs::Column::Attempts,
                Expr::col(runs::Column::Attempts).add(1),
            )
            .col_expr(
                runs::Column::StartedAt,
                Func::coalesce([Expr::col(runs::Column::StartedAt), Expr::value(now)]).into(),
            )
            .filter(runs::Column::Id.eq(id))
            .filter(claimable)
            .exec(self.conn())
            .await?;
        if result.rows_affected == 1 {
            self.run_by_id(id).await
        } else {
            Ok(None)
        }
    }

    /// Extends the lease; `false` when the run is no longer this owner's (it expired and
    /// another worker took it, or it finished).
    pub async fn renew_lease(
        &self,
        id: Uuid,
        owner: &str,
        until: DateTime<Utc>,
    ) -> Result<bool, StoreError> {
        let result = runs::Entity::update_many()
            .col_expr(runs::Column::LeaseExpiresAt, Expr::value(until))
            .filter(runs::Column::Id.eq(id))
            .filter(runs::Column::LeaseOwner.eq(owner))
            .filter(runs::Column::Status.eq(run_status::RUNNING))
            .exec(self.conn())
            .await?;
        Ok(result.rows_affected == 1)
    }

    /// Whether `owner` still holds the run's lease (it was not cancelled or taken over).
    pub async fn holds_lease(&self, id: Uuid, owner: &str) -> Result<bool, StoreError> {
        Ok(runs::Entity::find_by_id(id)
            .filter(runs::Column::LeaseOwner.eq(owner))
            .filter(runs::Column::Status.eq(run_status::RUNNING))
            .one(self.conn())
            .await?
            .is_some())
    }

    /// Gives a run back to the queue (a worker shutting down mid-run).
    pub async fn release_run(&self, id: Uuid, owner: &str) -> Result<bool, StoreError> {
        let result = move_to(
            without_lease(runs::Entity::update_many()),
            runs::Column::Status,
            RunStatus::Queued,
        )
        .filter(runs::Column::Id.eq(id))
        .filter(runs::Column::LeaseOwner.eq(owner))
        .exec(self.conn())
        .await?;
        Ok(result.rows_affected == 1)
    }

    /// Ends a run the owner holds: `succeeded` with its report, or `failed` with the reason
    /// (a move the life cycle allows from `running` only).
    pub async fn finish_run(
        &self,
        id: Uuid,
        owner: &str,
        status: RunStatus,
        report: Option<Uuid>,
        failure: Option<(&str, &str)>,
        now: DateTime<Utc>,
    ) -> Result<bool, StoreError> {
        let (code, reason) = failure.unzip();
        let txn = self.write().await?;
        let finished = move_to(
            without_lease(runs::Entity::update_many()),
            runs::Column::Status,
            status,
        )
        .col_expr(runs::Column::ReportId, Expr::value(report))
        .col_expr(runs::Column::FailureCode, Expr::value(code))
        .col_expr(runs::Column::FailureReason, Expr::value(reason))
        .col_expr(runs::Column::FinishedAt, Expr::value(now))
        .filter(runs::Column::Id.eq(id))
        .filter(runs::Column::LeaseOwner.eq(owner))
        .exec_with_returning(&txn)
        .await?;
        let Some(run) = finished.first() else {
            return Ok(false);
        };
        let event = Event::run_ended(RunEnded {
            listing_id: run.listing_id,
            run_id: run.id,
            kind: run.kind.clone(),
            status,
            report_id: report,
            failure_code: code.map(str::to_owned),
        });
        crate::outbox::emit(&txn, &event, now).await?;
        txn.commit().await?;
        Ok(true)
    }

    /// Cancels a run that has not finished; `false` when it had. A worker still measuring it
    /// finds out at its next lease renewal and stops without writing anything.
    pub async fn cancel_run(
        &self,
        id: Uuid,
        (code, reason): (&str, &str),
        now: DateTime<Utc>,
    ) -> Result<bool, StoreError> {
        let txn = self.write().await?;
        let cancelled = move_to(
            without_lease(runs::Entity::update_many()),
            runs::Column::Status,
            RunStatus::Cancelled,
        )
        .col_expr(runs::Column::FailureCode, Expr::value(code))
        .col_expr(runs::Column::FailureReason, Expr::value(reason))
        .col_expr(runs::Column::FinishedAt, Expr::value(now))
        .filter(runs::Column::Id.eq(id))
        .exec_with_returning(&txn)
        .await?;
        let Some(run) = cancelled.first() else {
            return Ok(false);
        };
        // A cancelled run ends without a report: told as failed, with its status.
        let event = Event::run_ended(RunEnded {
            listing_id: run.listing_id,
            run_id: run.id,
            kind: run.kind.clone(),
            status: RunStatus::Cancelled,
            report_id: None,
            failure_code: Some(code.to_owned()),
        });
        crate::outbox::emit(&txn, &event, now).await?;
        txn.commit().await?;
        Ok(true)
    }

    /// Cancels every queued or running run of a listing; returns their ids.
    pub async fn cancel_runs_of_listing(
        &self,
        listing: Uuid,
        reason: (&str, &str),
        now: DateTime<Utc>,
    ) -> Result<Vec<Uuid>, StoreError> {
        let ids: Vec<Uuid> = runs::Entity::find()
            .select_only()
            .column(runs::Column::Id)
            .filter(runs::Column::ListingId.eq(listing))
            .filter(is_open::<RunStatus>(runs::Column::Status))
            .into_tuple()
            .all(self.conn())
            .await?;
        let mut cancelled = Vec::new();
        for id in ids {
            if self.cancel_run(id, reason, now).await? {
                cancelled.push(id);
            }
        }
        Ok(cancelled)
    }

    /// Runs a queue may have lost: queued for longer than `stale_before`, or running on a
    /// lease that has run out.
    pub async fn runs_needing_dispatch(
        &self,
        stale_before: DateTime<Utc>,
        now: DateTime<Utc>,
    ) -> Result<Vec<Uuid>, StoreError> {
        let lost = Condition::any()
            .add(
                Condition::all()
                    .add(runs::Column::Status.eq(run_status::QUEUED))
                    .add(runs::Column::CreatedAt.lt(stale_before)),
            )
            .add(
                Condition::all()
                    .add(runs::Column::Status.eq(run_status::RUNNING))
                    .add(runs::Column::LeaseExpiresAt.lt(now)),
            );
        Ok(runs::Entity::find()
            .select_only()
            .column(runs::Column::Id)
            .filter(lost)
            .order_by_asc(runs::Column::CreatedAt)
            .limit(100)
            .into_tuple()
            .all(self.conn())
            .await?)
    }

    /// Appends an event to a run's log and returns its sequence number (from 1), or the last
    /// one's when the log has ended (see [`RUN_FINISHED`]).
    pub async fn append_event(
        &self,
        run: Uuid,
        kind: &str,
        data: String,
    ) -> Result<i32, StoreError> {
        let txn = self.write().await?;
        // Appends to one run's log take turns: the run's row is locked first (PostgreSQL;
        // SQLite's write lock, taken at `BEGIN`, already serialises them), so two appends
        // never read the same last number.
        runs::Entity::find_by_id(run)
            .select_only()
            .column(runs::Column::Id)
            .lock_exclusive()
            .into_tuple::<Uuid>()
            .one(&txn)
            .await?;
        let last: Option<i32> = run_events::Entity::find()
            .select_only()
            .column_as(run_events::Column::Seq.max(), "max")
            .filter(run_events::Column::RunId.eq(run))
            .into_tuple::<Option<i32>>()
            .one(&txn)
            .await?
            .flatten();
        // A run's log ends with its `run_finished`: what a worker still reports after the run
        // was finished elsewhere (cancelled while it started) is not appended, so followers,
        // who stop at that event, never see a log that goes on after it.
        let ended = run_events::Entity::find()
            .filter(run_events::Column::RunId.eq(run))
            .filter(run_events::Column::Kind.eq(RUN_FINISHED))
            .one(&txn)
            .await?
            .is_some();
        if ended {
            return Ok(last.unwrap_or(0));
        }
        let seq = last.unwrap_or(0) + 1;
        run_events::Entity::insert(run_events::ActiveModel {
            run_id: Set(run),
            seq: Set(seq),
            kind: Set(kind.to_owned()),
            data: Set(data),
            created_at: Set(Utc::now()),
        })
        .exec_without_returning(&txn)
        .await?;
        txn.commit().await?;
        Ok(seq)
    }

    pub async fn events_after(
        &self,
        run: Uuid,
        after: i32,
    ) -> Result<Vec<EventRecord>, StoreError> {
        Ok(run_events::Entity::find()
            .filter(run_events::Column::RunId.eq(run))
            .filter(run_events::Column::Seq.gt(after))
            .order_by_asc(run_events::Column::Seq)
            .all(self.conn())
            .await?)
    }
}
