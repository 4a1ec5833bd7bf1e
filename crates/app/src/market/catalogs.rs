//! The catalogs (GPUs, models) with the figures measured on them, and the decode calculator
//! beside those figures.

use catalog::{Catalog, Gpu, Model, Prediction};
use domain::ValidationError;
use store::{CatalogCellQuery, CatalogCellRecord};
use uuid::Uuid;

use crate::{App, AppError};

/// Most measured cells one answer lists.
const MEASURED_LIMIT: u64 = 500;

/// A valid decode cell of a verified listing with catalog entries (its latest report).
#[derive(Debug, Clone, PartialEq)]
pub struct MeasuredCell {
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

impl From<CatalogCellRecord> for MeasuredCell {
    fn from(r: CatalogCellRecord) -> Self {
        Self {
            listing_id: r.listing_id,
            report_id: r.report_id,
            catalog_gpu: r.catalog_gpu,
            catalog_model: r.catalog_model,
            context_tokens: r.context_tokens,
            concurrency: r.concurrency,
            total_tok_s: r.total_tok_s,
            per_request_tok_s: r.per_request_tok_s,
            ttft_ms: r.ttft_ms,
        }
    }
}

impl App {
    /// Verified cells and community runs' valid cells by catalog ids (and one cell).
    async fn measured(&self, query: CatalogCellQuery<'_>) -> Result<Measured, AppError> {
        let verified = self
            .db()
            .verified_catalog_cells(query, MEASURED_LIMIT)
            .await?
            .into_iter()
            .map(MeasuredCell::from)
            .collect();
        // The maintained community cells, each parsed alone: never a whole stored report.
        let community = self
            .db()
            .community_catalog_cells(
                query.gpu,
                query.model,
                query.context,
                query.concurrency,
                MEASURED_LIMIT,
            )
            .await?
            .into_iter()
            .filter_map(|c| {
                Some(CommunityMeasuredCell {
                    run_id: c.run_id,
                    catalog_gpu: c.catalog_gpu?,
                    catalog_model: c.catalog_model?,
                    cell: serde_json::from_str(&c.cell).ok()?,
                })
            })
            .collect();
        Ok(Measured {
            verified,
            community,
        })
    }
}

/// A valid decode cell of a community run that names both catalog entries.
#[derive(Debug, Clone, PartialEq)]
pub struct CommunityMeasuredCell {
    pub run_id: Uuid,
    pub catalog_gpu: String,
    pub catalog_model: String,
    pub cell: crate::trust::community::CommunityCell,
}

/// What was measured on a catalog entry (or pair): verified figures, and community runs'
/// figures beside them, never mixed.
#[derive(Debug, Clone, Default)]
pub struct Measured {
    pub verified: Vec<MeasuredCell>,
    pub community: Vec<CommunityMeasuredCell>,
}

/// What the calculator answers.
#[derive(Debug, Clone)]
pub struct DecodeEstimate {
    pub gpu: Gpu,
    pub model: Model,
    pub context: u64,
    pub concurrency: u64,
    pub predicted: Prediction,
    /// The most streams whose KV cache fits at this context.
    pub max_concurrency: u64,
    /// What no honest measurement may exceed (`exceeds_hardware_roofline`).
    pub physical_limit_total_tok_s: f64,
    /// What verified listings and community runs measured for this pair at this cell.
    pub measured: Measured,
}

pub(crate) fn catalogs() -> Result<&'static Catalog, AppError> {
    Catalog::get().map_err(|e| AppError::Internal(e.to_string()))
}

impl App {
    pub fn gpus(&self) -> Result<&'static [Gpu], AppError> {
        Ok(&catalogs()?.gpus)
    }

    pub fn models(&self) -> Result<&'static [Model], AppError> {
        Ok(&catalogs()?.models)
    }

    /// A GPU and the figures of every model measured on it.
    pub async fn gpu(&self, id: &str) -> Result<(Gpu, Measured), AppError> {
        let gpu = catalogs()?
            .gpu(id)
            .ok_or(AppError::NotFound("GPU"))?
            .clone();
        let query = CatalogCellQuery {
            gpu: Some(id),
            ..CatalogCellQuery::default()
        };
        Ok((gpu, self.measured(query).await?))
    }

    /// A model and its figures on every GPU.
    pub async fn model(&self, id: &str) -> Result<(Model, Measured), AppError> {
        let model = catalogs()?
            .model(id)
            .ok_or(AppError::NotFound("model"))?
            .clone();
        let query = CatalogCellQuery {
            model: Some(id),
            ..CatalogCellQuery::default()
        };
        Ok((model, self.measured(query).await?))
    }

    /// The decode calculator for a catalog pair at one cell, beside what was measured there.
    pub async fn decode_estimate(
        &self,
        gpu: &str,
        model: &str,
        context: i64,
        concurrency: i64,
    ) -> Result<DecodeEstimate, AppError> {
        let catalogs = catalogs()?;
        let gpu = catalogs.gpu(gpu).ok_or_else(|| {
            ValidationError::new("gpu", "is not a catalog id (see GET /v1/hardware)")
        })?;
        let model = catalogs.model(model).ok_or_else(|| {
            ValidationError::new("model", "is not a catalog id (see GET /v1/models)")
        })?;
        if !(0..=1_048_576).contains(&context) {
            return Err(
                ValidationError::new("context", "must be between 0 and 1048576 tokens").into(),
            );
        }
        if !(1..=4096).contains(&concurrency) {
            return Err(ValidationError::new("concurrency", "must be between 1 and 4096").into());
        }
        let (context_u, concurrency_u) = (context as u64, concurrency as u64);
        let query = CatalogCellQuery {
            gpu: Some(&gpu.id),
            model: Some(&model.id),
            context: Some(context),
            concurrency: Some(concurrency),
        };
        Ok(DecodeEstimate {
            predicted: catalog::predict_decode(gpu, model, context_u, concurrency_u),
            max_concurrency: catalog::max_concurrency(gpu, model, context_u),
            physical_limit_total_tok_s: catalog::physical_limit_total_tok_s(
                gpu,
                model,
                context_u,
                concurrency_u,
            ),
            measured: self.measured(query).await?,
            gpu: gpu.clone(),
            model: model.clone(),
            context: context_u,
            concurrency: concurrency_u,
        })
    }
}
