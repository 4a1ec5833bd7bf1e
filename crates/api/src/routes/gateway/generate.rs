//! A completion or chat completion through the gateway, metered: prepared by
//! `App::gateway_prepare` (one sequence, capped to the served context, usage asked for), sent
//! within a stream slot of the booking, and metered whichever way it ends — completed (a
//! stream: with `[DONE]`, every chunk readable), refused by the engine (4xx), the engine
//! failing (5xx, a broken or cut stream, an unreadable chunk), the booking ending, or the
//! client going away (then from a drop, in the background).

use std::time::Instant;

use actix_web::http::header;
use actix_web::web::{self, Bytes};
use actix_web::{HttpRequest, HttpResponse};
use app::App;
use app::market::gateway::{GatewaySlot, Load, Metered, Prepared, StreamMeter};
use chrono::{DateTime, Utc};
use serde_json::{Map, Value};
use uuid::Uuid;

use super::proxy::{self, Answers, engine_failed};
use crate::error::{ApiError, code};

/// Meters a request on its way out, once.
struct Meter {
    app: App,
    booking: Uuid,
    endpoint: &'static str,
    started_at: DateTime<Utc>,
    sent: Instant,
    prepared_caps: app::market::gateway::Caps,
    judged: bool,
    slot: Option<GatewaySlot>,
    stream: StreamMeter,
    recorded: bool,
}

impl Meter {
    /// The request as metered (the stream's metering unless given); `None` once recorded.
    fn take(
        &mut self,
        outcome: &'static str,
        metered: Option<Metered>,
    ) -> Option<(Metered, Option<GatewaySlot>)> {
        if self.recorded {
            return None;
        }
        self.recorded = true;
        let mut metered =
            metered.unwrap_or_else(|| self.stream.metered(self.prepared_caps, self.sent, outcome));
        metered.judged = self.judged;
        Some((metered, self.slot.take()))
    }

    /// Records the request once: its stream slot given back first (awaited, so the
    /// booking's next request finds it free), then the row inserted on its own task, so a
    /// client going away mid-record loses nothing.
    async fn finish(&mut self, outcome: &'static str, metered: Option<Metered>) {
        if let Some((metered, slot)) = self.take(outcome, metered) {
            let load = release(slot).await;
            self.insert(load, metered);
        }
    }

    fn insert(&self, load: Load, metered: Metered) {
        insert(
            self.app.clone(),
            (self.booking, self.endpoint, self.started_at),
            load,
            metered,
        );
    }
}

/// Inserts a metered request's row on its own task.
fn insert(
    app: App,
    (booking, endpoint, started_at): (Uuid, &'static str, DateTime<Utc>),
    load: Load,
    metered: Metered,
) {
    tokio::spawn(async move {
        if let Err(e) = app
            .record_gateway_request(booking, endpoint, started_at, load, &metered)
            .await
        {
            tracing::error!(error = %e, %booking, "a gateway request was not metered");
        }
    });
}

/// The machine's load while the request ran, its own stream included.
async fn release(slot: Option<GatewaySlot>) -> Load {
    match slot {
        Some(slot) => slot.release().await,
        None => Load { gateway: 1 },
    }
}

impl Drop for Meter {
    fn drop(&mut self) {
        // The client went away mid-stream: metered for what it received; the upstream
        // request is dropped with this, which cancels it at the engine. After `[DONE]` the
        // answer was whole.
        let outcome = if self.stream.done {
            self.stream.ended()
        } else {
            "client_disconnected"
        };
        let Some((metered, slot)) = self.take(outcome, None) else {
            return;
        };
        let Ok(runtime) = tokio::runtime::Handle::try_current() else {
            tracing::error!(booking = %self.booking, "a gateway request was not metered: no runtime");
            return;
        };
        let (app, request) = (
            self.app.clone(),
            (self.booking, self.endpoint, self.started_at),
        );
        runtime.spawn(async move {
            let load = release(slot).await;
            insert(app, request, load, metered);
        });
    }
}

/// The request's JSON object.
fn object(body: &[u8]) -> Result<Map<String, Value>, ApiError> {
    match serde_json::from_slice::<Value>(body) {
        Ok(Value::Object(object)) => Ok(object),
        Ok(_) => Err(ApiError::field("body", "must be a JSON object")),
        Err(e) => Err(ApiError::new(
            code::MALFORMED_JSON,
            format!("the body is not JSON: {e}"),
        )),
    }
}

/// Serves `endpoint` (`/v1/completions` or `/v1/chat/completions`) for the booking.
pub(super) async fn generate(
    app: web::Data<App>,
    req: HttpRequest,
    booking: Uuid,
    payload: web::Payload,
    endpoint: &'static str,
) -> Result<HttpResponse, ApiError> {
    let target = proxy::target_of(&app, &req, booking).await?;
    let body = proxy::read_body(payload, app.config().gateway.max_body_bytes).await?;
    // The slot first: preparing may ask the engine to count the prompt (`/tokenize`), and
    // that is within the booking's share too.
    let slot = app.gateway_slot(&target).await?;
    let prepared = match object(&body) {
        Ok(object) => app
            .gateway_prepare(&target, object, body.len())
            .await
            .map_err(ApiError::from),
        Err(e) => Err(e),
    };
    let Prepared {
        body: sent_body,
        stream,
        caps,
        strip_usage,
        judged,
    } = match prepared {
        Ok(prepared) => prepared,
        Err(e) => {
            // Refused before the engine heard of it: the slot is free again at once.
            slot.release().await;
            return Err(e);
        }
    };
    let request = proxy::request(&app, &target, endpoint, Some(sent_body))?;
    let mut meter = Meter {
        app: app.get_ref().clone(),
        booking,
        endpoint,
        started_at: Utc::now(),
        sent: Instant::now(),
        prepared_caps: caps,
        judged,
        slot: Some(slot),
        stream: StreamMeter::new(strip_usage),
        recorded: false,
    };
    let response = match request.send().await {
        Ok(response) => response,
        Err(e) => {
            // A refused or unreachable connection is down evidence. A timeout a request's own
            // content may cause: it only brings the next probe forward.
            if e.is_connect() {
                app.engine_unreachable(target.listing_id);
            } else if e.is_timeout() {
                app.engine_trouble(target.listing_id);
            }
            meter.finish("engine_error", None).await;
            return Err(engine_failed(e.without_url()));
        }
    };
    if response.status().is_server_error() {
        // A renter can make an engine fail a request: evidence for a probe, never "down".
        app.engine_trouble(target.listing_id);
    }
    let checked = proxy::client_status(response.status().as_u16()).and_then(|status| {
        Ok((
            status,
            proxy::content_type(&response, Answers::Json, stream)?,
        ))
    });
    let (status, content_type) = match checked {
        Ok(checked) => checked,
        Err(e) => {
            meter.finish("engine_error", None).await;
            return Err(e);
        }
    };
    if !status.is_success() || !stream {
        let body = proxy::read_answer(response).await;
        // The engine refusing the request (4xx) is the renter's request, never judged.
        let metered = match &body {
            Ok(answer) if status.is_success() => caps.meter_answer(answer, "completed"),
            Ok(_) if status.is_client_error() => caps.meter(None, 0, "rejected"),
            _ => caps.meter(None, 0, "engine_error"),
        };
        meter.finish(metered.outcome, Some(metered)).await;
        return Ok(HttpResponse::build(status)
            .content_type(content_type)
            .insert_header((header::X_CONTENT_TYPE_OPTIONS, "nosniff"))
            .body(body?));
    }
    // However slowly an engine trickles, the answer ends with the booking's access (its end,
    // or a maintenance window's start).
    let until_end = (target.access_until - Utc::now())
        .to_std()
        .unwrap_or_default();
    let deadline = tokio::time::Instant::now() + until_end;
    Ok(HttpResponse::build(status)
        .content_type(content_type)
        .insert_header((header::CACHE_CONTROL, "no-cache"))
        .insert_header((header::X_CONTENT_TYPE_OPTIONS, "nosniff"))
        .insert_header(("x-accel-buffering", "no"))
        .streaming(relay(response, meter, deadline, target.cut_as)))
}

/// What the relay carries from one chunk to the next: the engine's answer, the meter,
/// whether the stream is over, and when the last chunk was handed to the client.
type Relay = (reqwest::Response, Meter, bool, Option<Instant>);

/// Ends the relay with an error, metered as `outcome`.
async fn failed(
    response: reqwest::Response,
    mut meter: Meter,
    outcome: &'static str,
    why: String,
) -> Option<(Result<Bytes, std::io::Error>, Relay)> {
    meter.finish(outcome, None).await;
    Some((
        Err(std::io::Error::other(why)),
        (response, meter, true, None),
    ))
}

/// The engine's stream as the client gets it, metered as it passes. The stream is polled
/// for its next chunk once the client has taken the last one: the time in between is how
/// long the writes to the client stayed blocked (a slow reader).
fn relay(
    response: reqwest::Response,
    meter: Meter,
    deadline: tokio::time::Instant,
    cut_as: &'static str,
) -> impl futures_util::Stream<Item = Result<Bytes, std::io::Error>> {
    futures_util::stream::unfold(
        (response, meter, false, None::<Instant>),
        move |(mut response, mut meter, ended, handed): Relay| async move {
            if ended {
                return None;
            }
            if let Some(handed) = handed {
                meter.stream.stalled(handed.elapsed());
            }
            loop {
                let Ok(chunk) = tokio::time::timeout_at(deadline, response.chunk()).await else {
                    let why = match cut_as {
                        "maintenance_window" => "a maintenance window began",
                        _ => "the booking ended",
                    };
                    return failed(response, meter, cut_as, why.into()).await;
                };
                match chunk {
                    Ok(Some(bytes)) => match meter.stream.feed(&bytes, Instant::now()) {
                        // `[DONE]` ends the answer, whether or not the engine then closes the
                        // connection (an engine holding it open is not out of judging).
                        Ok(mut out) if meter.stream.done => {
                            out.extend(meter.stream.finish());
                            let outcome = meter.stream.ended();
                            meter.finish(outcome, None).await;
                            return Some((Ok(Bytes::from(out)), (response, meter, true, None)));
                        }
                        Ok(out) if out.is_empty() => continue,
                        Ok(out) => {
                            return Some((
                                Ok(Bytes::from(out)),
                                (response, meter, false, Some(Instant::now())),
                            ));
                        }
                        Err(why) => {
                            return failed(response, meter, "engine_error", why.into()).await;
                        }
                    },
                    Ok(None) => {
                        let rest = meter.stream.finish();
                        // Without `[DONE]`, or with a chunk it could not read: the engine failed.
                        let outcome = meter.stream.ended();
                        meter.finish(outcome, None).await;
                        if rest.is_empty() {
                            return None;
                        }
                        return Some((Ok(Bytes::from(rest)), (response, meter, true, None)));
                    }
                    Err(e) => {
                        let why = e.without_url().to_string();
                        return failed(response, meter, "engine_error", why).await;
                    }
                }
            }
        },
    )
}
