//! The metered gateway: one OpenAI-compatible endpoint per booking,
//! `/v1/gateway/{booking_id}/v1/…`, open to the booking's renter (their token or personal
//! key; never the machine's access token, which the provider sees) only while the booking is
//! confirmed or active and inside its interval. Requests go to the listing's engine through
//! the outbound rules (with the engine's key, never the renter's credential); answers come
//! back unchanged, streams as they arrive. Each request is metered ([`meter`]) with the
//! gateway's own view of the delivery — time to first token, chunks received, per-stream
//! speed, the streams open to the machine at once (`crate::engine_load`) — and its usage adds up per
//! bucket ([`usage`]); guarantees judge it (`crate::money::guarantees`).

pub mod meter;
mod request;
pub mod usage;

use std::sync::Arc;
use std::time::Duration as StdDuration;

use chrono::{DateTime, Utc};
use store::{GatewayRequestRecord, StreamLease};
use uuid::Uuid;

pub use crate::engine_load::{GatewaySlot, Load};
pub use meter::{Metered, StreamMeter};
pub use request::{Caps, Prepared, Served, prepare};
pub use usage::{Usage, UsageBucket};

use crate::engine_load::NotAdmitted;
use crate::{App, AppError, Caller};

pub use crate::engine_origin::engine_key;

/// Where a booking's requests go, and their limits.
#[derive(Debug, Clone)]
pub struct GatewayTarget {
    pub booking_id: Uuid,
    pub listing_id: Uuid,
    /// The engine's key ([`engine_key`]): its streams are counted under it.
    pub machine: Uuid,
    pub engine_base_url: String,
    pub engine_api_key: Option<domain::EngineKey>,
    /// Streams the booking may have open at once: its share of the machine.
    pub max_streams: usize,
    /// The largest `max_tokens` a request may ask for (and at most what it gets when it
    /// asks none).
    pub max_tokens: u64,
    /// The listing's model: requests naming another are served, not judged.
    pub model: String,
    /// The served context: `max_model_len` of the listing's verified report, when it has one.
    pub max_model_len: Option<u64>,
    /// When access ends: the booking's end, or the start of a maintenance window that
    /// interrupts it, whichever is first. No answer outlives it.
    pub access_until: DateTime<Utc>,
    /// What a stream still open at `access_until` is recorded as: `booking_ended` or
    /// `maintenance_window` (neither is judged).
    pub cut_as: &'static str,
    /// The booking holds every GPU of the machine: nobody else's counters are on it.
    pub whole_machine: bool,
    /// How the engine speaks: as its verified report measured it, else as the listing states
    /// (`engine.name`), else vLLM's. `/tokenize` and `/version` are translated from it.
    pub dialect: bench::engine::Dialect,
}

/// How long the gateway trusts a booking's facts as last read: a request within it costs no
/// database round trip before the engine hears of it. A booking cancelled through this
/// process is forgotten at once; one cancelled through another replica, or a listing given a
/// new engine, is seen within this long.
const GATE_TTL: StdDuration = StdDuration::from_secs(1);
/// Most bookings whose facts are kept.
const GATES_REMEMBERED: u64 = 10_000;
/// Most reports whose facts are remembered (a report never changes).
const REPORTS_REMEMBERED: u64 = 10_000;

/// What the gateway reads of a listing's verified report.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct ReportFacts {
    /// Requests the whole machine runs at once: the most streams the report measured as
    /// valid (what `max_num_seqs` let run).
    streams: usize,
    /// The context the engine served (`max_model_len`), as the report read it.
    max_model_len: Option<u64>,
    /// The engine the report measured; `None` for reports signed before engines were named.
    engine: Option<bench::engine::Dialect>,
}

/// What the gateway checks a request against: the booking (its renter, status and interval),
/// its listing (the engine and the machine's size) and the listing's maintenance windows that
/// had not ended when read (`[from, until)`: no access over them).
#[derive(Debug)]
struct Gate {
    booking: store::BookingRecord,
    listing: store::ListingRecord,
    windows: Vec<(DateTime<Utc>, DateTime<Utc>)>,
}

/// The gateway's state in this process: caches of what the database says, and the HTTP
/// client to engines.
#[derive(Debug)]
pub(crate) struct GatewayState {
    gates: moka::sync::Cache<Uuid, Arc<Gate>>,
    facts_of_report: moka::sync::Cache<Uuid, ReportFacts>,
    pub(crate) client: reqwest::Client,
}

impl GatewayState {
    /// One client under the outbound rules: no redirects, no proxy, every address checked;
    /// idle connections dropped before an engine's keep-alive closes them (uvicorn's is 5 s).
    pub(crate) fn new(allow_private: bool) -> Result<Self, AppError> {
        let client = outbound::client_builder(outbound::Policy::guarded(allow_private))
            .connect_timeout(StdDuration::from_secs(10))
            .read_timeout(StdDuration::from_secs(120))
            .pool_idle_timeout(StdDuration::from_secs(2))
            .build()
            .map_err(|e| AppError::Internal(format!("the gateway's HTTP client: {e}")))?;
        Ok(Self {
            gates: moka::sync::Cache::builder()
                .max_capacity(GATES_REMEMBERED)
                .time_to_live(GATE_TTL)
                .build(),
            facts_of_report: moka::sync::Cache::new(REPORTS_REMEMBERED),
            client,
        })
    }
}

impl App {
    /// A stream slot of the booking: 429 when its share is taken, 503 when the shared count
    /// cannot be reached.
    pub async fn gateway_slot(&self, target: &GatewayTarget) -> Result<GatewaySlot, AppError> {
        let lease = StreamLease {
            id: Uuid::now_v7(),
            booking_id: target.booking_id,
            listing_id: target.listing_id,
            machine: target.machine,
            max_streams: target.max_streams as u64,
            expires_at: Utc::now() + self.lease_length(),
        };
        self.slot(lease).await.map_err(|refusal| match refusal {
            NotAdmitted::Unreachable(e) => {
                tracing::warn!(error = %e, "the gateway's shared stream count is unavailable");
                AppError::Unavailable(
                    "the gateway cannot count streams right now; try again shortly".into(),
                )
            }
            NotAdmitted::Taken => AppError::RateLimited {
                what: format!(
                    "the booking's share of the machine is {} stream(s) at once",
                    target.max_streams
                ),
                retry_after_secs: 1,
            },
        })
    }

    /// Who calls the gateway: a person by their token or personal API key. The machine's
    /// access token is for the machine (its provider sees it), never for the gateway.
    pub async fn gateway_caller(&self, bearer: &str) -> Result<Caller, AppError> {
        if bearer.starts_with(crate::secrets::BOOKING_ACCESS_PREFIX) {
            return Err(AppError::WrongTokenAudience(
                "the booking's access token opens the machine, not the gateway: use your own token or personal API key",
            ));
        }
        self.authenticate(bearer).await
    }

    /// The engine a booking's gateway sends to, for its renter (by token or personal key),
    /// while the booking is confirmed or active and inside its interval.
    pub async fn gateway_target(
        &self,
        booking: Uuid,
        caller: Caller,
    ) -> Result<GatewayTarget, AppError> {
        if matches!(caller.via, crate::Credential::OrgKey { .. }) {
            return Err(AppError::Forbidden(
                "a booking is used by its renter: their token or personal key".into(),
            ));
        }
        let gate = self.gate(booking).await?;
        let (record, listing) = (&gate.booking, &gate.listing);
        if caller.user_id.as_uuid() != record.renter_id {
            // Someone else's booking: as if it did not exist.
            return Err(AppError::NotFound("booking"));
        }
        let now = Utc::now();
        if !record.status.gives_access() {
            return Err(AppError::BookingNotActive(record.status.to_string()));
        }
        if now < record.starts_at || record.ends_at <= now {
            return Err(AppError::BookingNotActive(
                "outside its interval".to_owned(),
            ));
        }
        if let Some((_, until)) = gate.windows.iter().find(|(f, u)| *f <= now && now < *u) {
            return Err(AppError::BookingNotActive(format!(
                "the machine is in a maintenance window until {}",
                until.to_rfc3339_opts(chrono::SecondsFormat::Secs, true)
            )));
        }
        let (access_until, cut_as) = gate
            .windows
            .iter()
            .map(|&(from, _)| from)
            .filter(|&from| now < from && from < record.ends_at)
            .min()
            .map_or((record.ends_at, "booking_ended"), |from| {
                (from, "maintenance_window")
            });
        let facts = self.report_facts(listing.latest_report_id).await?;
        let share =
            facts.streams * record.gpu_count.max(0) as usize / listing.gpu_count.max(1) as usize;
        Ok(GatewayTarget {
            booking_id: booking,
            listing_id: record.listing_id,
            machine: engine_key(&listing.engine_base_url),
            engine_base_url: listing.engine_base_url.clone(),
            engine_api_key: self.engine_key_of(listing)?,
            max_streams: share.max(1),
            max_tokens: self.config().gateway.max_tokens,
            model: listing.engine_model.clone(),
            max_model_len: facts.max_model_len,
            access_until,
            cut_as,
            whole_machine: record.gpu_count >= listing.gpu_count,
            dialect: facts
                .engine
                .or_else(|| {
                    listing
                        .engine_name
                        .as_deref()
                        .and_then(bench::engine::Dialect::named)
                })
                .unwrap_or_default(),
        })
    }

    /// The booking's gate facts: as read within [`GATE_TTL`], else read afresh (the booking
    /// and its listing at once). `NotFound` when there is no such booking.
    async fn gate(&self, booking: Uuid) -> Result<Arc<Gate>, AppError> {
        let gates = &self.inner.market.gateway.gates;
        if let Some(gate) = gates.get(&booking) {
            return Ok(gate);
        }
        let (record, listing) = tokio::try_join!(
            self.db().booking_by_id(booking),
            self.db().listing_of_booking(booking)
        )?;
        let listing = listing.ok_or(AppError::NotFound("listing"))?;
        let windows = self
            .db()
            .maintenance_windows(listing.id, Utc::now())
            .await?
            .into_iter()
            .map(|w| (w.starts_at, w.ends_at))
            .collect();
        let gate = Arc::new(Gate {
            booking: record.ok_or(AppError::NotFound("booking"))?,
            listing,
            windows,
        });
        gates.insert(booking, Arc::clone(&gate));
        Ok(gate)
    }

    /// Forgets what the gateway read of a booking (it was cancelled), so that its next
    /// request reads it afresh.
    pub(crate) fn forget_gate(&self, booking: Uuid) {
        self.inner.market.gateway.gates.invalidate(&booking);
    }

    /// What the gateway reads of a listing's verified report: the most streams it measured
    /// as valid (1 without a report) and the context the engine served.
    async fn report_facts(&self, report: Option<Uuid>) -> Result<ReportFacts, AppError> {
        let Some(report) = report else {
            return Ok(ReportFacts {
                streams: 1,
                max_model_len: None,
                engine: None,
            });
        };
        let remembered = &self.inner.market.gateway.facts_of_report;
        if let Some(facts) = remembered.get(&report) {
            return Ok(facts);
        }
        let (cells, record) = tokio::try_join!(
            self.db().cells_of_report(report),
            self.db().report_by_id(report)
        )?;
        let streams = cells
            .iter()
            .filter(|c| {
                c.phase == domain::CellPhase::Decode && c.status == domain::CellStatus::Valid
            })
            .map(|c| c.concurrency.max(1) as usize)
            .max()
            .unwrap_or(1);
        let max_model_len = record
            .as_ref()
            .and_then(|r| crate::trust::reports::served_context(&r.envelope));
        let engine = record.as_ref().and_then(|r| {
            crate::trust::reports::ReportSummary::of_stored(&r.summary)
                .engine_name
                .as_deref()
                .and_then(bench::engine::Dialect::named)
        });
        let facts = ReportFacts {
            streams,
            max_model_len,
            engine,
        };
        remembered.insert(report, facts);
        Ok(facts)
    }

    /// Prepares a request for the booking's engine ([`prepare`]); when the request sets no
    /// `max_tokens` and the cap might not fit the served context, the engine's `/tokenize`
    /// counts the prompt first (bounded; without an answer, the prompt's bytes are used).
    pub async fn gateway_prepare(
        &self,
        target: &GatewayTarget,
        request: serde_json::Map<String, serde_json::Value>,
        body_len: usize,
    ) -> Result<Prepared, AppError> {
        let served = Served {
            cap: target.max_tokens,
            model: &target.model,
            max_model_len: target.max_model_len,
        };
        request::check(&request)?;
        let counted = if request::must_count(&request, served) {
            self.count_prompt(target, &request).await
        } else {
            None
        };
        prepare(request, body_len, served, counted)
    }

    /// The prompt's tokens as the engine's `/tokenize` counts them, in its dialect, through
    /// the outbound rules, within 10 s and [`bench::bounds::TOKENIZE_BODY`]; `None` without a
    /// count (and for chat messages on an engine that tokenizes text only).
    async fn count_prompt(
        &self,
        target: &GatewayTarget,
        request: &serde_json::Map<String, serde_json::Value>,
    ) -> Option<u64> {
        let body = tokenize_body(target, request).ok()??;
        let answer = self
            .engine_answer(
                target,
                "/tokenize",
                Some(body.to_string()),
                StdDuration::from_secs(10),
                bench::bounds::TOKENIZE_BODY,
            )
            .await?;
        target.dialect.token_count(&answer)
    }

    /// The gateway's `/tokenize` for an engine whose tokenizer speaks another shape than
    /// vLLM's: the renter's vLLM-shaped request (`prompt`) translated into the engine's, and
    /// its answer into vLLM's shape (`count`, `max_model_len`, `tokens`). `None` for vLLM and
    /// SGLang (whose `/tokenize` takes and answers vLLM's shape), whose answer passes
    /// unchanged. 404 where the engine has no tokenizer the gateway knows; 422 for chat
    /// `messages`, which only vLLM's and SGLang's `/tokenize` take.
    pub async fn gateway_tokenize(
        &self,
        target: &GatewayTarget,
        request: &[u8],
    ) -> Result<Option<serde_json::Value>, AppError> {
        use bench::engine::Dialect;
        if matches!(target.dialect, Dialect::Vllm | Dialect::Sglang) {
            return Ok(None);
        }
        let request: serde_json::Map<String, serde_json::Value> = serde_json::from_slice(request)
            .map_err(|_| {
            domain::ValidationError::new("body", "must be a JSON object with a `prompt`")
        })?;
        let body = tokenize_body(target, &request)?
            .ok_or(AppError::NotFound("a tokenizer on this engine"))?;
        let answer = self
            .engine_answer(
                target,
                "/tokenize",
                Some(body.to_string()),
                StdDuration::from_secs(10),
                bench::bounds::TOKENIZE_BODY,
            )
            .await
            .ok_or(AppError::EngineFailed("its /tokenize gave no answer"))?;
        let tokens = target
            .dialect
            .token_ids(&answer)
            .ok_or(AppError::EngineFailed(
                "its /tokenize answer lists no tokens",
            ))?;
        Ok(Some(serde_json::json!({
            "count": tokens.len(),
            "max_model_len": target.max_model_len,
            "tokens": tokens,
        })))
    }

    /// The gateway's `/version` for an engine that is not vLLM: its info endpoint's version
    /// (llama.cpp's `/props` build, SGLang's `/get_server_info`, TGI's `/info`) in vLLM's shape
    /// (`version`). `None` for vLLM, whose answer passes unchanged; 404 when the engine
    /// states none.
    pub async fn gateway_version(
        &self,
        target: &GatewayTarget,
    ) -> Result<Option<serde_json::Value>, AppError> {
        let dialect = target.dialect;
        if dialect == bench::engine::Dialect::Vllm {
            return Ok(None);
        }
        let answer = self
            .engine_answer(
                target,
                dialect.info_path(),
                None,
                StdDuration::from_secs(10),
                bench::bounds::SMALL_BODY,
            )
            .await
            .ok_or(AppError::EngineFailed("its info endpoint gave no answer"))?;
        let version = dialect
            .version(&answer)
            .ok_or(AppError::NotFound("a version this engine states"))?;
        Ok(Some(serde_json::json!({ "version": version })))
    }

    /// A bounded call of the gateway's own to the booking's engine (`body` posted as JSON,
    /// else a GET), through the outbound rules with the engine's key: the answer's body when
    /// it was 2xx, within `timeout` and `limit` bytes.
    pub(crate) async fn engine_answer(
        &self,
        target: &GatewayTarget,
        path: &str,
        body: Option<String>,
        timeout: StdDuration,
        limit: usize,
    ) -> Option<Vec<u8>> {
        let url =
            outbound::engine_url(&target.engine_base_url, path, self.outbound_policy()).ok()?;
        let client = self.gateway_client();
        let mut request = match body {
            Some(body) => client
                .post(url)
                .header(reqwest::header::CONTENT_TYPE, "application/json")
                .body(body),
            None => client.get(url),
        }
        .timeout(timeout);
        if let Some(key) = &target.engine_api_key {
            request = request.bearer_auth(key.expose());
        }
        let mut response = request.send().await.ok()?;
        if !response.status().is_success() {
            return None;
        }
        bench::bounds::read_body(&mut response, limit)
            .await
            .ok()?
            .ok()
    }

    /// Records a metered request.
    pub async fn record_gateway_request(
        &self,
        booking: Uuid,
        endpoint: &str,
        started_at: DateTime<Utc>,
        load: Load,
        metered: &Metered,
    ) -> Result<(), AppError> {
        let as_i64 = |n: u64| i64::try_from(n).unwrap_or(i64::MAX);
        self.db()
            .insert_gateway_request(GatewayRequestRecord {
                id: Uuid::now_v7(),
                booking_id: booking,
                endpoint: endpoint.to_owned(),
                started_at,
                finished_at: Utc::now(),
                prompt_tokens: as_i64(metered.prompt_tokens),
                output_tokens: as_i64(metered.output_tokens),
                engine_output_tokens: metered.engine_output_tokens.map(as_i64),
                ttft_ms: metered.ttft_ms,
                per_stream_tok_s: metered.per_stream_tok_s,
                concurrency: i32::try_from(load.gateway).unwrap_or(i32::MAX),
                outcome: metered.outcome.to_owned(),
                client_stall_ms: metered.client_stall_ms,
                comparable: metered.judged,
                chunks: metered.chunks.map(as_i64),
                text_bytes: metered.text_bytes.map(as_i64),
                max_tokens: metered.max_tokens.map(as_i64),
                last_token_ms: metered.last_token_ms,
                // The engine's own count is never read (judging rests on the gateway's).
                engine_load: None,
            })
            .await?;
        Ok(())
    }
}

/// The engine's `/tokenize` request for a renter's request: vLLM's takes the `prompt` (text or
/// token ids) or chat `messages` as sent, with the listing's model; the others a text prompt.
/// `Ok(None)` where the engine has no tokenizer the gateway knows; 422 for what it cannot take.
fn tokenize_body(
    target: &GatewayTarget,
    request: &serde_json::Map<String, serde_json::Value>,
) -> Result<Option<serde_json::Value>, AppError> {
    use bench::engine::Dialect;
    if matches!(target.dialect, Dialect::Vllm | Dialect::Sglang) {
        let mut body = serde_json::Map::new();
        body.insert("model".to_owned(), target.model.clone().into());
        for field in ["prompt", "messages"] {
            if let Some(value) = request.get(field) {
                body.insert(field.to_owned(), value.clone());
            }
        }
        return Ok(Some(serde_json::Value::Object(body)));
    }
    let Some(prompt) = request.get("prompt").and_then(serde_json::Value::as_str) else {
        return Err(domain::ValidationError::new(
            "prompt",
            format!(
                "this engine ({}) tokenizes a text `prompt`; chat `messages` and token ids only vLLM's and SGLang's",
                target.dialect.name()
            ),
        )
        .into());
    };
    Ok(target.dialect.tokenize_request(&target.model, prompt))
}
