//! The catalogue's pages: a model's and a GPU's measured results.

use actix_web::{HttpRequest, HttpResponse, web};
use app::App;
use askama::Template;

use super::{
    Frame, format::context_label, format::ms, format::number, format::rate, report::Rows, respond,
};

/// A measured cell of a model or GPU page, verified or community.
pub(super) struct ResultRow {
    /// The other catalog entry: the GPU on a model's page, the model on a GPU's.
    pub(super) name: String,
    pub(super) name_href: String,
    pub(super) context_label: String,
    pub(super) concurrency: i64,
    pub(super) total: String,
    pub(super) per_request: String,
    pub(super) ttft: String,
    pub(super) community: bool,
    pub(super) href: String,
}

/// The verified cells, then community runs' valid cells (newest runs first); the name
/// column is the model on a GPU's page (`by_model`), else the GPU.
pub(super) fn result_rows(
    frame: &Frame,
    measured: app::market::catalogs::Measured,
    by_model: bool,
) -> Vec<ResultRow> {
    let other = |gpu: &str, model: &str| {
        if by_model {
            (model.to_owned(), frame.link(&format!("/models/{model}")))
        } else {
            (gpu.to_owned(), frame.link(&format!("/hardware/{gpu}")))
        }
    };
    let mut rows: Vec<ResultRow> = measured
        .verified
        .into_iter()
        .map(|c| {
            let (name, name_href) = other(&c.catalog_gpu, &c.catalog_model);
            ResultRow {
                name,
                name_href,
                context_label: context_label(c.context_tokens.max(0) as u64),
                concurrency: c.concurrency,
                total: rate(c.total_tok_s),
                per_request: rate(c.per_request_tok_s),
                ttft: ms(c.ttft_ms, 0),
                community: false,
                href: frame.link(&format!("/reports/{}", c.report_id)),
            }
        })
        .collect();
    rows.extend(measured.community.into_iter().map(|c| {
        let (name, name_href) = other(&c.catalog_gpu, &c.catalog_model);
        ResultRow {
            name,
            name_href,
            context_label: context_label(c.cell.context_tokens),
            concurrency: c.cell.concurrency as i64,
            total: rate(c.cell.total_tok_s),
            per_request: rate(c.cell.per_request_tok_s),
            ttft: ms(c.cell.ttft_ms_median, 0),
            community: true,
            href: frame.link(&format!("/runs/{}", c.run_id)),
        }
    }));
    rows
}

/// A catalog entry's page: a model's (results by GPU) or a GPU's (results by model).
#[derive(Template)]
#[template(path = "catalog_entry.html")]
struct CatalogEntryPage {
    frame: Frame,
    id: String,
    name: String,
    source: String,
    facts: Rows,
    results: Vec<ResultRow>,
    /// A GPU's page: its results are by model.
    by_model: bool,
    other_column: &'static str,
}

pub(super) async fn model_page(
    req: HttpRequest,
    app: web::Data<App>,
    id: web::Path<String>,
) -> HttpResponse {
    respond(&req, async {
        let (model, measured) = app.model(&id).await?;
        let mut frame = Frame::new(&req, format!("/v1/models/{}", model.id));
        let l = frame.l;
        let results = result_rows(&frame, measured, false);
        frame.title = model.name.clone();
        let facts = vec![
            (
                l.parameters,
                format!("{} {}", number(model.parameters_b, 1), l.billion),
            ),
            (l.weight_bits, number(model.weight_bits, 0)),
            (l.layers, model.layers.to_string()),
            (l.attention_layers, model.attention_layers.to_string()),
            (l.kv_heads, model.kv_heads.to_string()),
            (l.head_dim, model.head_dim.to_string()),
            (
                l.recurrent_state,
                format!("{} {}", number(model.recurrent_state_bytes, 0), l.bytes),
            ),
        ];
        let lang = frame.lang;
        Ok((
            CatalogEntryPage {
                frame,
                id: model.id,
                name: model.name,
                source: model.source,
                facts,
                results,
                by_model: false,
                other_column: l.gpu,
            },
            lang,
        ))
    })
    .await
}

pub(super) async fn hardware_page(
    req: HttpRequest,
    app: web::Data<App>,
    id: web::Path<String>,
) -> HttpResponse {
    respond(&req, async {
        let (gpu, measured) = app.gpu(&id).await?;
        let mut frame = Frame::new(&req, format!("/v1/hardware/{}", gpu.id));
        let l = frame.l;
        let results = result_rows(&frame, measured, true);
        frame.title = gpu.name.clone();
        let facts = vec![
            (l.vendor, gpu.vendor.clone()),
            (l.vram, format!("{} GB", number(gpu.vram_gb, 0))),
            (
                l.memory_bandwidth,
                format!("{} GB/s", number(gpu.memory_bandwidth_gb_s, 0)),
            ),
            (l.fp16_tflops, number(gpu.fp16_tensor_tflops, 1)),
        ];
        let lang = frame.lang;
        Ok((
            CatalogEntryPage {
                frame,
                id: gpu.id,
                name: gpu.name,
                source: gpu.source,
                facts,
                results,
                by_model: true,
                other_column: l.model,
            },
            lang,
        ))
    })
    .await
}
