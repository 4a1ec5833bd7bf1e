use std::time::{Duration, Instant};

use actix_web::web::Bytes;
use actix_web::{HttpRequest, HttpResponse, get, web};
use app::App;
use uuid::Uuid;

use crate::error::ApiError;
use crate::error::Problems;
use crate::error::problem::{InvalidToken, NotFound, RateLimited};
use crate::extract::{ClientNetwork, MaybeAuth};

/// How long the stream waits for news before looking in the log anyway (wake-ups come
/// through the process's one subscription; this only covers a lost one).
const POLL: Duration = Duration::from_secs(5);
/// A comment line keeps idle connections (and proxies) open.
const KEEP_ALIVE: Duration = Duration::from_secs(15);

/// A run's progress as Server-Sent Events: `run_queued`, `run_started`, `prefill_finished`,
/// `cell_started`, `cell_finished` (with the cell's figures) and `run_finished`, each with
/// its sequence number as the event id. The log is replayed from the start (or after
/// `Last-Event-ID`), then followed live; the stream ends after `run_finished`. Public; at most
/// `event_streams_per_client` streams at once per client network (an IPv4 address, an IPv6
/// /64; 429 `rate_limited` beyond).
#[utoipa::path(extensions(("x-rate-class" = json!("events"))), operation_id = "follow_verification_events", 
    tag = "verification",
    params(("id" = Uuid, Path, description = "The run's id")),
    responses(
        (status = 200, description = "An event stream", content_type = "text/event-stream", body = String),
        Problems<(InvalidToken, NotFound, RateLimited)>,
    )
)]
#[get("/verifications/{id}/events")]
pub async fn events(
    app: web::Data<App>,
    id: web::Path<Uuid>,
    req: HttpRequest,
    ClientNetwork(client): ClientNetwork,
    MaybeAuth(viewer): MaybeAuth,
) -> Result<HttpResponse, ApiError> {
    let after = req
        .headers()
        .get("last-event-id")
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.parse::<i32>().ok())
        .unwrap_or(0);
    let follower = app
        .follow_run(id.into_inner().into(), after, client, viewer)
        .await?;
    let state = Follow {
        follower,
        quiet_since: Instant::now(),
    };
    Ok(HttpResponse::Ok()
        .insert_header(("content-type", "text/event-stream"))
        .insert_header(("cache-control", "no-cache"))
        .streaming(futures_util::stream::unfold(state, Follow::next)))
}

struct Follow {
    follower: app::trust::verification::RunFollower,
    quiet_since: Instant,
}

impl Follow {
    async fn next(mut self) -> Option<(Result<Bytes, actix_web::Error>, Self)> {
        if self.follower.finished() {
            return None;
        }
        loop {
            match self.follower.new_events().await {
                Ok(log) if !log.is_empty() => {
                    let mut out = String::new();
                    for e in log {
                        out.push_str(&format!(
                            "id: {}\nevent: {}\ndata: {}\n\n",
                            e.seq, e.kind, e.data
                        ));
                    }
                    self.quiet_since = Instant::now();
                    return Some((Ok(Bytes::from(out)), self));
                }
                Ok(_) => {}
                Err(e) => {
                    tracing::warn!(error = %e, "reading run events failed");
                }
            }
            if self.quiet_since.elapsed() >= KEEP_ALIVE {
                self.quiet_since = Instant::now();
                return Some((Ok(Bytes::from_static(b": keep-alive\n\n")), self));
            }
            self.follower.wait(POLL).await;
        }
    }
}
