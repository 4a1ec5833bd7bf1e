//! Measured figures by catalog entry: the valid decode cells of the latest report of every
//! active, verified listing that names its catalog GPU and model.

use sea_orm::sea_query::{Expr, ExprTrait, Order, Query};
use sea_orm::{ConnectionTrait, Iden};
use uuid::Uuid;

use crate::entities::{listings, report_cells};
use crate::{Db, StoreError, badge_state, listing_status};

/// One verified cell of a listing with catalog entries.
#[derive(Debug, Clone, PartialEq)]
pub struct CatalogCellRecord {
    pub listing_id: Uuid,
    pub report_id: Uuid,
    pub catalog_gpu: String,
    pub catalog_model: String,
    pub context_tokens: i64,
    pub concurrency: i64,
    pub total_tok_s: Option<f64>,
    pub per_request_tok_s: Option<f64>,
    pub ttft_ms: Option<f64>,
}

/// Which cells: any filter left `None` matches everything.
#[derive(Debug, Clone, Copy, Default)]
pub struct CatalogCellQuery<'a> {
    pub gpu: Option<&'a str>,
    pub model: Option<&'a str>,
    pub context: Option<i64>,
    pub concurrency: Option<i64>,
}

impl Db {
    /// Verified cells by catalog entry, best total first, at most `limit`.
    pub async fn verified_catalog_cells(
        &self,
        query: CatalogCellQuery<'_>,
        limit: u64,
    ) -> Result<Vec<CatalogCellRecord>, StoreError> {
        let (l, c) = (listings::Entity, report_cells::Entity);
        let mut select = Query::select();
        select
            .column((l, listings::Column::Id))
            .column((l, listings::Column::CatalogGpu))
            .column((l, listings::Column::CatalogModel))
            .column((c, report_cells::Column::ReportId))
            .column((c, report_cells::Column::ContextTokens))
            .column((c, report_cells::Column::Concurrency))
            .column((c, report_cells::Column::TotalTokS))
            .column((c, report_cells::Column::PerRequestTokS))
            .column((c, report_cells::Column::TtftMs))
            .from(l)
            .inner_join(
                c,
                Expr::col((c, report_cells::Column::ReportId))
                    .equals((l, listings::Column::LatestReportId)),
            )
            .and_where(Expr::col((l, listings::Column::Status)).eq(listing_status::ACTIVE))
            .and_where(
                Expr::col((l, listings::Column::VerificationState)).eq(badge_state::VERIFIED),
            )
            .and_where(Expr::col((l, listings::Column::CatalogGpu)).is_not_null())
            .and_where(Expr::col((l, listings::Column::CatalogModel)).is_not_null())
            .and_where(
                Expr::col((c, report_cells::Column::Phase)).eq(domain::CellPhase::Decode.as_str()),
            )
            .and_where(
                Expr::col((c, report_cells::Column::Status)).eq(domain::CellStatus::Valid.as_str()),
            )
            .order_by((c, report_cells::Column::TotalTokS), Order::Desc)
            .limit(limit);
        if let Some(gpu) = query.gpu {
            select.and_where(Expr::col((l, listings::Column::CatalogGpu)).eq(gpu));
        }
        if let Some(model) = query.model {
            select.and_where(Expr::col((l, listings::Column::CatalogModel)).eq(model));
        }
        if let Some(context) = query.context {
            select.and_where(Expr::col((c, report_cells::Column::ContextTokens)).eq(context));
        }
        if let Some(concurrency) = query.concurrency {
            select.and_where(Expr::col((c, report_cells::Column::Concurrency)).eq(concurrency));
        }
        let rows = self.conn().query_all(&select).await?;
        let column = |c: &dyn Iden| c.to_string();
        rows.iter()
            .map(|row| {
                Ok(CatalogCellRecord {
                    listing_id: row.try_get("", &column(&listings::Column::Id))?,
                    catalog_gpu: row.try_get("", &column(&listings::Column::CatalogGpu))?,
                    catalog_model: row.try_get("", &column(&listings::Column::CatalogModel))?,
                    report_id: row.try_get("", &column(&report_cells::Column::ReportId))?,
                    context_tokens: row
                        .try_get("", &column(&report_cells::Column::ContextTokens))?,
                    concurrency: row.try_get("", &column(&report_cells::Column::Concurrency))?,
                    total_tok_s: row.try_get("", &column(&report_cells::Column::TotalTokS))?,
                    per_request_tok_s: row
                        .try_get("", &column(&report_cells::Column::PerRequestTokS))?,
                    ttft_ms: row.try_get("", &column(&report_cells::Column::TtftMs))?,
                })
            })
            .collect()
    }
}
