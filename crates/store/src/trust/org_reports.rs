//! Organisation reports as stored snapshots: signed when their content changes, each logged
//! in the transparency log in the transaction that stores it.

use sea_orm::{ActiveModelTrait, ColumnTrait, EntityTrait, QueryFilter, QueryOrder};
use uuid::Uuid;

use crate::entities::org_reports;
use crate::{Db, NewLeaf, StoreError, conflict_as};
use domain::webhook::{Event, OrgReportPublished, ReportPublished};

/// A signed organisation report: `sequence` is 1 for the organisation's first snapshot,
/// then one more per change; `content_sha256` the SHA-256 (hex) of the canonical JSON of the
/// content signed (the report without its time), to tell whether the fleet changed; `report`
/// the statement's predicate and `envelope` the DSSE envelope, both JSON.
pub type OrgReportRecord = org_reports::Model;

impl Db {
    pub async fn latest_org_report(
        &self,
        org: Uuid,
    ) -> Result<Option<OrgReportRecord>, StoreError> {
        Ok(org_reports::Entity::find()
            .filter(org_reports::Column::OrgId.eq(org))
            .order_by_desc(org_reports::Column::Sequence)
            .one(self.conn())
            .await?)
    }

    /// Stores a snapshot and appends `leaf` to the log. Another snapshot with the same
    /// sequence (a concurrent change) is [`StoreError::Conflict`]`("org report")`.
    pub async fn insert_org_report(
        &self,
        report: OrgReportRecord,
        leaf: Vec<u8>,
    ) -> Result<u64, StoreError> {
        let txn = self.write().await?;
        let (id, created_at, org) = (report.id, report.created_at, report.org_id);
        org_reports::Entity::insert(org_reports::ActiveModel::from(report).reset_all())
            .exec_without_returning(&txn)
            .await
            .map_err(conflict_as("org report"))?;
        let index = crate::trust::transparency::append(
            &txn,
            NewLeaf {
                report_id: id,
                kind: "organisation".to_owned(),
                leaf,
                private: false,
                created_at,
            },
        )
        .await?;
        let event = Event::ReportPublished(ReportPublished::Organisation(OrgReportPublished::new(
            org, id,
        )));
        crate::outbox::emit(&txn, &event, created_at).await?;
        txn.commit().await?;
        Ok(index)
    }
}
