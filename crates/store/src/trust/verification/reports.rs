//! Signed reports, their cells, and the keys that sign them.

use chrono::{DateTime, Utc};
use domain::webhook::{Event, ListingVerified, ReportPublished, RunReportPublished};
use domain::{CellPhase, CellStatus};
use sea_orm::sea_query::{Expr, ExprTrait};
use sea_orm::{ActiveValue::Set, ColumnTrait, EntityTrait, QueryFilter, QueryOrder, QuerySelect};
use uuid::Uuid;

use crate::entities::{listings, report_cells, reports, signing_keys};
use crate::trust::runs::MeasuredClaim;
use crate::{Db, StoreError, conflict_as};

pub type ReportRecord = reports::Model;
pub type SigningKeyRecord = signing_keys::Model;

/// One cell of a stored report, its phase and status typed.
#[derive(Debug, Clone, PartialEq)]
pub struct CellRecord {
    pub report_id: Uuid,
    pub phase: CellPhase,
    pub context_tokens: i64,
    pub concurrency: i64,
    pub status: CellStatus,
    pub total_tok_s: Option<f64>,
    pub per_request_tok_s: Option<f64>,
    pub ttft_ms: Option<f64>,
    pub tbt_ms: Option<f64>,
    pub prompt_tok_s: Option<f64>,
    pub ttft_ms_p99: Option<f64>,
    pub ttft_samples: Option<i64>,
    pub itl_ms_p99: Option<f64>,
    pub tokens_per_chunk: Option<f64>,
    /// Energy per token, J, where the cell's energy was plausible.
    pub energy_j_per_token: Option<f64>,
}

impl TryFrom<report_cells::Model> for CellRecord {
    type Error = StoreError;

    fn try_from(c: report_cells::Model) -> Result<Self, StoreError> {
        let corrupt = |what: &str, name: &str| {
            StoreError::Corrupt(format!(
                "report {}: a cell's {what} is {name:?}",
                c.report_id
            ))
        };
        Ok(Self {
            report_id: c.report_id,
            phase: CellPhase::parse(&c.phase).ok_or_else(|| corrupt("phase", &c.phase))?,
            context_tokens: c.context_tokens,
            concurrency: c.concurrency,
            status: CellStatus::parse(&c.status).ok_or_else(|| corrupt("status", &c.status))?,
            total_tok_s: c.total_tok_s,
            per_request_tok_s: c.per_request_tok_s,
            ttft_ms: c.ttft_ms,
            tbt_ms: c.tbt_ms,
            prompt_tok_s: c.prompt_tok_s,
            ttft_ms_p99: c.ttft_ms_p99,
            ttft_samples: c.ttft_samples,
            itl_ms_p99: c.itl_ms_p99,
            tokens_per_chunk: c.tokens_per_chunk,
            energy_j_per_token: c.energy_j_per_token,
        })
    }
}

fn typed_cells(models: Vec<report_cells::Model>) -> Result<Vec<CellRecord>, StoreError> {
    models.into_iter().map(CellRecord::try_from).collect()
}

/// The filters of [`Db::public_reports`].
#[derive(Debug, Clone, Copy, Default)]
pub struct PublicReportQuery<'a> {
    pub model: Option<&'a str>,
    pub gpu: Option<&'a str>,
    pub kind: Option<&'a str>,
    pub before: Option<Uuid>,
}

#[derive(Debug, Clone)]
pub struct NewReport {
    pub id: Uuid,
    pub run_id: Uuid,
    pub listing_id: Uuid,
    pub org_id: Uuid,
    pub compliant: bool,
    pub key_id: String,
    pub envelope: String,
    pub summary: String,
    pub created_at: DateTime<Utc>,
    pub cells: Vec<CellRecord>,
    /// A compliant report's headline: best total tok/s, single-stream tok/s.
    pub headline: (Option<f64>, Option<f64>),
    /// The listing's hardware and engine as the run measured them: the report verifies the
    /// listing only while the listing still claims exactly this.
    pub measured: MeasuredClaim,
    /// `verification` or `spot_check`.
    pub kind: String,
    /// The badge a compliant verification report gives (`None`: it gives none, as for a
    /// spot check).
    pub badge: Option<crate::Badge>,
    /// What the run cost (the report's `cost`, JSON): it becomes the listing's last
    /// verification cost, whatever the report's kind or verdict.
    pub cost: Option<String>,
    /// The report's transparency-log leaf: its envelope as canonical JSON (or the SHA-256 of
    /// that when `log_private`), appended in the transaction that stores the report.
    pub log_leaf: Vec<u8>,
    pub log_private: bool,
    /// `public`, or `private`: then it sets no badge, no headline and no listing figure.
    pub visibility: String,
    /// The engine the report measured (`engine.name`): its listing's `measured_engine` while
    /// the report is its verification.
    pub engine: Option<String>,
}

impl Db {
    /// Stores a signed report and its cells in one transaction; a compliant one also becomes
    /// its listing's latest verification there. A second report for the same
    /// run is [`StoreError::Conflict`]`("report")`: a report is attached exactly once.
    pub async fn insert_report(&self, report: NewReport) -> Result<ReportRecord, StoreError> {
        let _search = self.search_touch();
        let id = report.id;
        let txn = self.write().await?;
        // Whether the machine's agent confirmed the claim as the report is made.
        let confirmed: Option<bool> = listings::Entity::find_by_id(report.listing_id)
            .select_only()
            .column(listings::Column::HardwareConfirmed)
            .into_tuple()
            .one(&txn)
            .await?;
        let model = reports::ActiveModel {
            id: Set(report.id),
            run_id: Set(report.run_id),
            listing_id: Set(report.listing_id),
            org_id: Set(report.org_id),
            compliant: Set(report.compliant),
            key_id: Set(report.key_id),
            envelope: Set(report.envelope),
            summary: Set(report.summary),
            created_at: Set(report.created_at),
            kind: Set(report.kind.clone()),
            visibility: Set(report.visibility.clone()),
            cell_figures_filled: Set(true),
            catalog_gpu: Set(report.measured.catalog_gpu.clone()),
            catalog_model: Set(report.measured.catalog_model.clone()),
            hardware_confirmed: Set(confirmed.unwrap_or(false)),
        };
        let public = report.visibility != crate::visibility::PRIVATE;
        reports::Entity::insert(model)
            .exec_without_returning(&txn)
            .await
            .map_err(conflict_as("report"))?;
        if !report.cells.is_empty() {
            let cells = report.cells.into_iter().map(|c| report_cells::ActiveModel {
                report_id: Set(id),
                phase: Set(c.phase.as_str().to_owned()),
                context_tokens: Set(c.context_tokens),
                concurrency: Set(c.concurrency),
                status: Set(c.status.as_str().to_owned()),
                total_tok_s: Set(c.total_tok_s),
                per_request_tok_s: Set(c.per_request_tok_s),
                ttft_ms: Set(c.ttft_ms),
                tbt_ms: Set(c.tbt_ms),
                prompt_tok_s: Set(c.prompt_tok_s),
                ttft_ms_p99: Set(c.ttft_ms_p99),
                ttft_samples: Set(c.ttft_samples),
                itl_ms_p99: Set(c.itl_ms_p99),
                tokens_per_chunk: Set(c.tokens_per_chunk),
                energy_j_per_token: Set(c.energy_j_per_token),
            });
            report_cells::Entity::insert_many(cells)
                .exec_without_returning(&txn)
                .await?;
        }
        if let Some(cost) = report.cost.filter(|_| public) {
            listings::Entity::update_many()
                .col_expr(listings::Column::LastVerificationCost, Expr::value(cost))
                .filter(listings::Column::Id.eq(report.listing_id))
                .exec(&txn)
                .await?;
        }
        let mut badged = false;
        if let Some(badge) = report.badge.filter(|_| report.compliant && public) {
            // Not granted when the listing changed during the run.
            badged = crate::trust::projection::set_verification(
                &txn,
                report.listing_id,
                &report.measured,
                id,
                report.created_at,
                report.headline,
                badge,
            )
            .await?;
            if badged {
                listings::Entity::update_many()
                    .col_expr(
                        listings::Column::MeasuredEngine,
                        Expr::value(report.engine.clone()),
                    )
                    .filter(listings::Column::Id.eq(report.listing_id))
                    .exec(&txn)
                    .await?;
            }
        }
        if badged {
            let event = Event::ListingVerified(ListingVerified {
                listing_id: report.listing_id,
                report_id: id,
                verified_at: report.created_at,
            });
            crate::outbox::emit(&txn, &event, report.created_at).await?;
        }
        let event = Event::ReportPublished(ReportPublished::Run(RunReportPublished {
            listing_id: report.listing_id,
            report_id: id,
            run_id: report.run_id,
            kind: report.kind.clone(),
            compliant: report.compliant,
            visibility: report.visibility.clone(),
        }));
        crate::outbox::emit(&txn, &event, report.created_at).await?;
        // Last: the log's lock is held only for the log's own writes.
        crate::trust::transparency::append(
            &txn,
            crate::NewLeaf {
                report_id: id,
                kind: report.kind,
                leaf: report.log_leaf,
                private: report.log_private,
                created_at: report.created_at,
            },
        )
        .await?;
        txn.commit().await?;
        self.report_by_id(id)
            .await?
            .ok_or_else(|| StoreError::Corrupt(format!("report {id} vanished after insert")))
    }

    pub async fn report_by_id(&self, id: Uuid) -> Result<Option<ReportRecord>, StoreError> {
        Ok(reports::Entity::find_by_id(id).one(self.conn()).await?)
    }

    pub async fn report_by_run(&self, run: Uuid) -> Result<Option<ReportRecord>, StoreError> {
        Ok(reports::Entity::find()
            .filter(reports::Column::RunId.eq(run))
            .one(self.conn())
            .await?)
    }

    /// A page of a listing's reports (of `kind`, when given), newest first, after the
    /// report `before` (exclusive; ids are time-ordered); private ones only `with_private`.
    pub async fn reports_of_listing(
        &self,
        listing: Uuid,
        kind: Option<&str>,
        before: Option<Uuid>,
        limit: u64,
        with_private: bool,
    ) -> Result<Vec<ReportRecord>, StoreError> {
        let mut select = reports::Entity::find().filter(reports::Column::ListingId.eq(listing));
        if !with_private {
            select = select.filter(reports::Column::Visibility.ne(crate::visibility::PRIVATE));
        }
        if let Some(kind) = kind {
            select = select.filter(reports::Column::Kind.eq(kind));
        }
        if let Some(before) = before {
            select = select.filter(reports::Column::Id.lt(before));
        }
        Ok(select
            .order_by_desc(reports::Column::Id)
            .limit(limit)
            .all(self.conn())
            .await?)
    }

    /// A page of the public reports (never private ones), newest first, after the report
    /// `before` (exclusive; ids are time-ordered); only those of the catalog `model` and
    /// `gpu` their listing claimed, and of `kind`, when given.
    pub async fn public_reports(
        &self,
        query: PublicReportQuery<'_>,
        limit: u64,
    ) -> Result<Vec<ReportRecord>, StoreError> {
        let mut select = reports::Entity::find()
            .filter(reports::Column::Visibility.ne(crate::visibility::PRIVATE));
        if let Some(model) = query.model {
            select = select.filter(reports::Column::CatalogModel.eq(model));
        }
        if let Some(gpu) = query.gpu {
            select = select.filter(reports::Column::CatalogGpu.eq(gpu));
        }
        if let Some(kind) = query.kind {
            select = select.filter(reports::Column::Kind.eq(kind));
        }
        if let Some(before) = query.before {
            select = select.filter(reports::Column::Id.lt(before));
        }
        Ok(select
            .order_by_desc(reports::Column::Id)
            .limit(limit)
            .all(self.conn())
            .await?)
    }

    pub async fn cells_of_report(&self, report: Uuid) -> Result<Vec<CellRecord>, StoreError> {
        typed_cells(
            report_cells::Entity::find()
                .filter(report_cells::Column::ReportId.eq(report))
                .order_by_asc(report_cells::Column::Phase)
                .order_by_asc(report_cells::Column::ContextTokens)
                .order_by_asc(report_cells::Column::Concurrency)
                .all(self.conn())
                .await?,
        )
    }

    /// Valid decode cells of compliant reports, best total first, optionally at one context
    /// and concurrency: the raw material of the leaderboard.
    pub async fn best_cells(
        &self,
        context: Option<i64>,
        concurrency: Option<i64>,
        limit: u64,
    ) -> Result<Vec<(CellRecord, ReportRecord)>, StoreError> {
        // Only the reports that are an active listing's badge now: not a spot check, not one
        // whose badge expired, was demoted or withdrawn by an edit.
        let badges = sea_orm::sea_query::Query::select()
            .column(crate::entities::listings::Column::LatestReportId)
            .from(crate::entities::listings::Entity)
            .and_where(
                Expr::col(crate::entities::listings::Column::Status)
                    .eq(crate::status::listing_status::ACTIVE),
            )
            .and_where(Expr::col(crate::entities::listings::Column::LatestReportId).is_not_null())
            .to_owned();
        let mut query = report_cells::Entity::find()
            .filter(report_cells::Column::Phase.eq(CellPhase::Decode.as_str()))
            .filter(report_cells::Column::Status.eq(CellStatus::Valid.as_str()))
            .filter(report_cells::Column::TotalTokS.is_not_null())
            .filter(Expr::col(report_cells::Column::ReportId).in_subquery(badges));
        if let Some(context) = context {
            query = query.filter(report_cells::Column::ContextTokens.eq(context));
        }
        if let Some(concurrency) = concurrency {
            query = query.filter(report_cells::Column::Concurrency.eq(concurrency));
        }
        let cells = query
            .order_by_desc(report_cells::Column::TotalTokS)
            .limit(limit)
            .all(self.conn())
            .await?;
        let mut out = Vec::with_capacity(cells.len());
        for cell in typed_cells(cells)? {
            if let Some(report) = self.report_by_id(cell.report_id).await?
                && report.compliant
            {
                out.push((cell, report));
            }
        }
        Ok(out)
    }

    /// Publishes a public key (idempotent).
    pub async fn publish_signing_key(
        &self,
        key_id: &str,
        public_key: &str,
        now: DateTime<Utc>,
    ) -> Result<(), StoreError> {
        signing_keys::Entity::insert(signing_keys::ActiveModel {
            key_id: Set(key_id.to_owned()),
            public_key: Set(public_key.to_owned()),
            created_at: Set(now),
            retired_at: Set(None),
        })
        .on_conflict_do_nothing_on([signing_keys::Column::KeyId])
        .exec_without_returning(self.conn())
        .await?;
        Ok(())
    }

    /// Marks every other published key retired (it stays published to verify old reports).
    pub async fn retire_signing_keys_except(
        &self,
        key_id: &str,
        now: DateTime<Utc>,
    ) -> Result<u64, StoreError> {
        let result = signing_keys::Entity::update_many()
            .col_expr(signing_keys::Column::RetiredAt, Expr::value(now))
            .filter(signing_keys::Column::KeyId.ne(key_id))
            .filter(signing_keys::Column::RetiredAt.is_null())
            .exec(self.conn())
            .await?;
        Ok(result.rows_affected)
    }

    pub async fn signing_keys(&self) -> Result<Vec<SigningKeyRecord>, StoreError> {
        Ok(signing_keys::Entity::find()
            .order_by_asc(signing_keys::Column::CreatedAt)
            .all(self.conn())
            .await?)
    }
}

/// The figures of one report cell that judging reads, as its signed envelope states them.
#[derive(Debug, Clone, PartialEq)]
pub struct CellFigures {
    pub phase: CellPhase,
    pub context_tokens: i64,
    pub concurrency: i64,
    pub ttft_ms_p99: Option<f64>,
    pub ttft_samples: Option<i64>,
    pub itl_ms_p99: Option<f64>,
    pub tokens_per_chunk: Option<f64>,
}

impl Db {
    /// Reports stored before their cells kept the figures judging reads: (id, envelope),
    /// at most `limit`.
    pub async fn reports_to_fill(&self, limit: u64) -> Result<Vec<(Uuid, String)>, StoreError> {
        Ok(reports::Entity::find()
            .select_only()
            .column(reports::Column::Id)
            .column(reports::Column::Envelope)
            .filter(reports::Column::CellFiguresFilled.eq(false))
            .order_by_asc(reports::Column::Id)
            .limit(limit)
            .into_tuple()
            .all(self.conn())
            .await?)
    }

    /// Writes a report's cell figures and marks it filled, in one transaction; a report
    /// filled meanwhile (by another replica) is written the same again.
    pub async fn fill_cell_figures(
        &self,
        report: Uuid,
        cells: &[CellFigures],
    ) -> Result<(), StoreError> {
        let txn = self.write().await?;
        for cell in cells {
            report_cells::Entity::update_many()
                .col_expr(
                    report_cells::Column::TtftMsP99,
                    Expr::value(cell.ttft_ms_p99),
                )
                .col_expr(
                    report_cells::Column::TtftSamples,
                    Expr::value(cell.ttft_samples),
                )
                .col_expr(report_cells::Column::ItlMsP99, Expr::value(cell.itl_ms_p99))
                .col_expr(
                    report_cells::Column::TokensPerChunk,
                    Expr::value(cell.tokens_per_chunk),
                )
                .filter(report_cells::Column::ReportId.eq(report))
                .filter(report_cells::Column::Phase.eq(cell.phase.as_str()))
                .filter(report_cells::Column::ContextTokens.eq(cell.context_tokens))
                .filter(report_cells::Column::Concurrency.eq(cell.concurrency))
                .exec(&txn)
                .await?;
        }
        reports::Entity::update_many()
            .col_expr(reports::Column::CellFiguresFilled, Expr::value(true))
            .filter(reports::Column::Id.eq(report))
            .exec(&txn)
            .await?;
        txn.commit().await?;
        Ok(())
    }
}
