//! Badges that mean "still true": a listing's verification state and when its badge expires,
//! when its next unannounced spot check is due, and the history of verifications, spot
//! checks, expiries, withdrawals and demotions. Withdrawing a badge clears the listing's
//! headline and its rows of the search projection, so the `verified` filter and the measured
//! sorts stop finding it; the listing itself stays bookable.

use chrono::{DateTime, Utc};
use sea_orm::sea_query::Expr;
use sea_orm::{
    ColumnTrait, Condition, EntityTrait, QueryFilter, QueryOrder, QuerySelect, UpdateMany,
};
use uuid::Uuid;

use crate::ListingRecord;
use crate::entities::{listings, verification_checks};
use crate::status::listing_status;
use crate::trust::projection::{
    Badge, CheckRecord, badge_state, check_kind, record_check, withdraw, withdraw_where,
};
use crate::trust::runs::{RunRecord, insert_run_in};
use crate::{Db, StoreError};
use domain::webhook::{Event, ListingDemoted, ListingExpired};

impl Db {
    /// Expires the badges whose time is up (a badge from before expiries existed gets
    /// `verified_at + ttl` first). Returns the listings whose badge expired.
    pub async fn expire_badges(
        &self,
        now: DateTime<Utc>,
        ttl: chrono::Duration,
    ) -> Result<Vec<Uuid>, StoreError> {
        let _search = self.search_touch();
        let undated: Vec<(Uuid, Option<DateTime<Utc>>)> = listings::Entity::find()
            .select_only()
            .column(listings::Column::Id)
            .column(listings::Column::VerifiedAt)
            .filter(listings::Column::VerificationState.eq(badge_state::VERIFIED))
            .filter(listings::Column::VerificationExpiresAt.is_null())
            .into_tuple()
            .all(self.conn())
            .await?;
        for (id, verified_at) in undated {
            listings::Entity::update_many()
                .col_expr(
                    listings::Column::VerificationExpiresAt,
                    Expr::value(verified_at.unwrap_or(now) + ttl),
                )
                .filter(listings::Column::Id.eq(id))
                .filter(listings::Column::VerificationExpiresAt.is_null())
                .exec(self.conn())
                .await?;
        }
        let due: Vec<(Uuid, Option<Uuid>)> = listings::Entity::find()
            .select_only()
            .column(listings::Column::Id)
            .column(listings::Column::LatestReportId)
            .filter(listings::Column::VerificationState.eq(badge_state::VERIFIED))
            .filter(listings::Column::VerificationExpiresAt.lte(now))
            .limit(500)
            .into_tuple()
            .all(self.conn())
            .await?;
        let mut expired = Vec::new();
        for (id, report) in due {
            let txn = self.write().await?;
            // Still verified and still due: a spot check may have renewed it meanwhile.
            let still_due = Condition::all()
                .add(listings::Column::VerificationState.eq(badge_state::VERIFIED))
                .add(listings::Column::VerificationExpiresAt.lte(now));
            if withdraw_where(&txn, id, report, Some(badge_state::EXPIRED), still_due).await? {
                record_check(
                    &txn,
                    id,
                    check_kind::EXPIRED,
                    (None, report),
                    Some("the badge reached its expiry without a renewal"),
                    now,
                )
                .await?;
                let event = Event::ListingExpired(ListingExpired {
                    listing_id: id,
                    report_id: report,
                });
                crate::outbox::emit(&txn, &event, now).await?;
                expired.push(id);
            }
            txn.commit().await?;
        }
        Ok(expired)
    }

    /// Verified, active listings whose spot check is due.
    pub async fn due_spot_checks(
        &self,
        now: DateTime<Utc>,
        limit: u64,
    ) -> Result<Vec<ListingRecord>, StoreError> {
        Ok(listings::Entity::find()
            .filter(listings::Column::VerificationState.eq(badge_state::VERIFIED))
            .filter(listings::Column::Status.eq(listing_status::ACTIVE))
            .filter(listings::Column::NextSpotCheckAt.lte(now))
            .order_by_asc(listings::Column::NextSpotCheckAt)
            .limit(limit)
            .all(self.conn())
            .await?)
    }

    /// Records the spot-check run `run` of a due listing, unscheduling the check in the same
    /// transaction (so two schedulers make one run). `None` when it was no longer due.
    pub async fn start_spot_check(
        &self,
        run: RunRecord,
        now: DateTime<Utc>,
    ) -> Result<Option<RunRecord>, StoreError> {
        let _search = self.search_touch();
        let txn = self.write().await?;
        let taken = listings::Entity::update_many()
            .col_expr(
                listings::Column::NextSpotCheckAt,
                Expr::value(Option::<DateTime<Utc>>::None),
            )
            .filter(listings::Column::Id.eq(run.listing_id))
            .filter(listings::Column::VerificationState.eq(badge_state::VERIFIED))
            .filter(listings::Column::LatestReportId.eq(run.baseline_report_id))
            .filter(listings::Column::NextSpotCheckAt.lte(now))
            .exec(&txn)
            .await?;
        if taken.rows_affected == 0 {
            return Ok(None);
        }
        let id = run.id;
        insert_run_in(&txn, run).await?;
        txn.commit().await?;
        self.run_by_id(id).await
    }

    /// A spot check confirmed `baseline`: the badge lasts to `badge.expires_at` and the next
    /// check is scheduled. `false` when the listing's badge is no longer `baseline`.
    pub async fn renew_badge(
        &self,
        listing: Uuid,
        baseline: Uuid,
        report: Uuid,
        badge: Badge,
        now: DateTime<Utc>,
    ) -> Result<bool, StoreError> {
        self.keep_badge(
            (listing, baseline),
            |update| badge.set_on(update),
            (check_kind::SPOT_CHECK_PASSED, Some(report), None),
            now,
        )
        .await
    }

    /// A spot check of `baseline` found nothing either way, for `reason`: the badge keeps its
    /// expiry and the next check is due at `next_check`. `false` when the listing's badge is
    /// no longer `baseline`.
    pub async fn spot_check_inconclusive(
        &self,
        listing: Uuid,
        (baseline, report): (Uuid, Option<Uuid>),
        reason: &str,
        next_check: DateTime<Utc>,
        now: DateTime<Utc>,
    ) -> Result<bool, StoreError> {
        self.keep_badge(
            (listing, baseline),
            |update| update.col_expr(listings::Column::NextSpotCheckAt, Expr::value(next_check)),
            (check_kind::SPOT_CHECK_INCONCLUSIVE, report, Some(reason)),
            now,
        )
        .await
    }

    /// A spot check's verdict that keeps the badge: `set` on the listing while it is still
    /// verified by `baseline`, and the check (`kind`, the spot check's report, the reason) in
    /// its history, in one transaction. `false` when the badge is no longer `baseline`.
    async fn keep_badge(
        &self,
        (listing, baseline): (Uuid, Uuid),
        set: impl FnOnce(UpdateMany<listings::Entity>) -> UpdateMany<listings::Entity>,
        (kind, report, reason): (&str, Option<Uuid>, Option<&str>),
        now: DateTime<Utc>,
    ) -> Result<bool, StoreError> {
        let _search = self.search_touch();
        let txn = self.write().await?;
        let kept = set(listings::Entity::update_many())
            .filter(listings::Column::Id.eq(listing))
            .filter(listings::Column::VerificationState.eq(badge_state::VERIFIED))
            .filter(listings::Column::LatestReportId.eq(baseline))
            .exec(&txn)
            .await?
            .rows_affected
            == 1;
        if kept {
            record_check(&txn, listing, kind, (report, Some(baseline)), reason, now).await?;
        }
        txn.commit().await?;
        Ok(kept)
    }

    /// A spot check found the machine no longer as `baseline` says: the badge is withdrawn
    /// and the listing marked demoted, with the reason and both reports in its history.
    pub async fn demote(
        &self,
        listing: Uuid,
        baseline: Uuid,
        report: Option<Uuid>,
        reason: &str,
        now: DateTime<Utc>,
    ) -> Result<bool, StoreError> {
        let _search = self.search_touch();
        let txn = self.write().await?;
        let demoted = withdraw(&txn, listing, Some(baseline), Some(badge_state::DEMOTED)).await?;
        if demoted {
            record_check(
                &txn,
                listing,
                check_kind::DEMOTED,
                (report, Some(baseline)),
                Some(reason),
                now,
            )
            .await?;
            // The reason stays out: it may quote what the engine answered.
            let event = Event::ListingDemoted(ListingDemoted {
                listing_id: listing,
                baseline_report_id: baseline,
                report_id: report,
            });
            crate::outbox::emit(&txn, &event, now).await?;
        }
        txn.commit().await?;
        Ok(demoted)
    }

    /// Whether a check (a spot check's verdict) names the report as what it measured.
    pub async fn report_was_judged(&self, report: Uuid) -> Result<bool, StoreError> {
        Ok(verification_checks::Entity::find()
            .filter(verification_checks::Column::ReportId.eq(report))
            .one(self.conn())
            .await?
            .is_some())
    }

    /// A listing's verification history, oldest first.
    pub async fn verification_checks(&self, listing: Uuid) -> Result<Vec<CheckRecord>, StoreError> {
        Ok(verification_checks::Entity::find()
            .filter(verification_checks::Column::ListingId.eq(listing))
            .order_by_asc(verification_checks::Column::CreatedAt)
            .order_by_asc(verification_checks::Column::Id)
            .all(self.conn())
            .await?)
    }
}
