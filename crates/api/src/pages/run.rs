//! A run's page: its state, and its report when it has one.

use actix_web::{HttpRequest, HttpResponse, web};
use app::App;
use askama::Template;

use super::{
    Frame, format::number, report::ReportBody, report::Rows, report_page::LogBlock,
    report_page::log_block, respond, uuid_of,
};

#[derive(Template)]
#[template(path = "run.html")]
struct RunPage {
    frame: Frame,
    title: String,
    body: Option<ReportBody>,
    handle: String,
    submitted_at: String,
    launch_command: Option<String>,
    hardware_notes: Option<String>,
    catalog: Vec<(String, String)>,
    report_sha256: String,
    key_id: String,
    log: Option<LogBlock>,
    proof_json: String,
}

pub(super) async fn run_page(
    req: HttpRequest,
    app: web::Data<App>,
    id: web::Path<String>,
) -> HttpResponse {
    respond(&req, async {
        let id = uuid_of(&id)?;
        let run = app.community_run(id).await?;
        let frame = Frame::new(&req, format!("/v1/runs/{id}"));
        let l = frame.l;
        let gpu = app
            .gpus()?
            .iter()
            .find(|g| run.catalog_gpu.as_deref() == Some(g.id.as_str()));
        let mut hardware = Rows::new();
        if let Some(gpu) = gpu {
            hardware.push((l.gpu, gpu.name.clone()));
            hardware.push((l.vram, format!("{} GB", number(gpu.vram_gb, 0))));
        }
        let body = serde_json::from_value::<app::trust::reports::model::Report>(run.report.clone())
            .ok()
            .map(|r| ReportBody::of(&r, hardware, l));
        let catalog = frame.catalog_links(run.catalog_gpu.as_deref(), run.catalog_model.as_deref());
        let gpu_name = gpu.map_or("?", |g| g.name.as_str());
        let title = format!("{} {} {gpu_name}", run.model, l.on);
        let log = log_block(&app, id, run.log_index, None).await?;
        let mut frame = frame;
        frame.title = format!("{} · {title}", l.community_run);
        let lang = frame.lang;
        Ok((
            RunPage {
                frame,
                title,
                body,
                handle: run.submitter_handle,
                submitted_at: run.created_at.to_rfc3339(),
                launch_command: run.launch_command,
                hardware_notes: run.hardware_notes,
                catalog,
                report_sha256: run.report_sha256,
                key_id: run.receipt["signatures"][0]["keyid"]
                    .as_str()
                    .unwrap_or_default()
                    .to_owned(),
                log,
                proof_json: format!("/v1/reports/{id}/proof"),
            },
            lang,
        ))
    })
    .await
}
