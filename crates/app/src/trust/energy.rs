//! Energy per token (the standard's derived figures). A run measures first; only then is its
//! listing's agent asked — through the desired state it long-polls — for its GPUs' samples
//! over the run (so a spot check is not announced by the request), and the worker waits a
//! bounded time for the upload. Each measured decode cell then gets its GPUs' energy over its
//! window per generated token, judged against the GPUs' power limits (the agent's facts) and
//! board power (the catalog); the report says where the figures come from (`source: agent`).
//! Without an agent, or without an upload in time, the cells' energy is `unavailable`.

use std::time::Duration;

use chrono::{DateTime, Utc};
use domain::energy::{self, CellEnergy, PowerBounds, Telemetry};
use store::{ListingRecord, RunRecord, TelemetryPut};
use uuid::Uuid;

use crate::{App, AppError, Caller};

/// The seconds before a run's preflight whose power is the GPUs' idle power.
const IDLE_SECS: i64 = 5;
/// How often the worker looks whether the samples came.
const LOOK_EVERY: Duration = Duration::from_millis(250);

/// A run's samples asked of its listing's agent (the desired state's `telemetry_wanted`).
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct TelemetryWanted {
    pub run_id: Uuid,
    /// The window to upload, by the server's clock.
    pub from: DateTime<Utc>,
    pub until: DateTime<Utc>,
}

/// When a run's first engine request went out (its preflight), by the server's clock.
pub(crate) type RunStart = DateTime<Utc>;

impl App {
    /// The runs whose samples `listing_id`'s agent is asked for (those asked within its ring
    /// buffer's ten minutes and not yet uploaded).
    pub(crate) async fn telemetry_wanted(
        &self,
        listing_id: Uuid,
    ) -> Result<Vec<TelemetryWanted>, AppError> {
        let since = Utc::now() - chrono::Duration::seconds(energy::RING_SECS as i64);
        Ok(self
            .db()
            .telemetry_wanted(listing_id, since)
            .await?
            .into_iter()
            .map(|r| TelemetryWanted {
                run_id: r.run_id,
                from: r.from_at,
                until: r.until_at,
            })
            .collect())
    }

    /// A listing's agent uploads a run's samples: checked, its GPUs among those it reported,
    /// kept once (an upload repeated after a lost answer changes nothing: the first stands).
    /// 404 when no run of the listing asks for them.
    pub async fn agent_telemetry(
        &self,
        caller: Caller,
        listing_id: Uuid,
        telemetry: Telemetry,
    ) -> Result<(), AppError> {
        self.require_agent_key(caller, listing_id).await?;
        telemetry
            .check(domain::agent::MAX_GPUS)
            .map_err(|why| domain::ValidationError::new("telemetry", why))?;
        let listing = self.listing_record(listing_id).await?;
        if let Some(state) = self.agent_state(&listing).await? {
            let unknown = telemetry
                .gpus
                .iter()
                .find(|g| !state.facts.gpus.iter().any(|f| f.uuid == g.uuid));
            if let Some(gpu) = unknown {
                return Err(domain::ValidationError::new(
                    "gpus",
                    format!("{} is not a GPU the agent's facts report", gpu.uuid),
                )
                .into());
            }
        }
        let samples =
            serde_json::to_string(&telemetry).map_err(|e| AppError::Internal(e.to_string()))?;
        let now = Utc::now();
        let since = now - chrono::Duration::seconds(energy::RING_SECS as i64);
        match self
            .db()
            .put_telemetry(listing_id, telemetry.run_id, &samples, (since, now))
            .await?
        {
            TelemetryPut::Stored => {
                // The run leaves the desired state.
                self.wake_agent(listing_id).await;
                Ok(())
            }
            TelemetryPut::AlreadyReceived => Ok(()),
            TelemetryPut::NotWanted => Err(AppError::NotFound("run asking for samples")),
        }
    }

    /// Fills `report`'s energy figures from `listing`'s agent's samples over the run (asked
    /// now, waited for at most `[agent] telemetry_wait_secs`); every measured cell is
    /// `unavailable` when there is no agent heard or no upload. `started` is when the run's
    /// first request went out.
    pub(crate) async fn add_energy(
        &self,
        run: &RunRecord,
        listing: &ListingRecord,
        started: RunStart,
        report: &mut bench::Report,
    ) -> Result<(), AppError> {
        let windows: Vec<Option<(DateTime<Utc>, DateTime<Utc>)>> =
            report.decode.iter().map(window_of).collect();
        for (cell, window) in report.decode.iter_mut().zip(&windows) {
            if window.is_some() {
                set(cell, CellEnergy::UNAVAILABLE);
            }
        }
        let Some(last) = windows.iter().flatten().map(|w| w.1).max() else {
            return Ok(());
        };
        let presence = self.agent_presence(listing.id).await?;
        let Some(offset_ms) = presence
            .as_ref()
            .filter(|p| p.online)
            .map(|p| p.clock_offset_ms.unwrap_or(0))
        else {
            return Ok(());
        };
        let asked = (
            started - chrono::Duration::seconds(IDLE_SECS + 1),
            last + chrono::Duration::seconds(1),
        );
        self.db()
            .request_telemetry(run.id, listing.id, asked, Utc::now())
            .await?;
        self.wake_agent(listing.id).await;
        let Some(telemetry) = self.await_telemetry(run.id).await? else {
            tracing::info!(run = %run.id, "no GPU samples came from the agent: energy unavailable");
            return Ok(());
        };
        let bounds = self.power_bounds(listing).await?;
        let gpus = energy::engine_gpus(&telemetry);
        // The agent's clock is `offset_ms` ahead of the server's.
        let agent_ms = |at: DateTime<Utc>| (at.timestamp_millis() + offset_ms) as f64;
        for (cell, window) in report.decode.iter_mut().zip(&windows) {
            let Some((from, until)) = window else {
                continue;
            };
            let tokens = cell.output_tokens.unwrap_or(0);
            let found =
                energy::cell_energy(&gpus, (agent_ms(*from), agent_ms(*until)), tokens, |uuid| {
                    bounds(uuid)
                });
            set(cell, found);
        }
        let idle = (
            agent_ms(started - chrono::Duration::seconds(IDLE_SECS)),
            agent_ms(started),
        );
        report.energy = Some(bench::report::Energy {
            source: "agent".to_owned(),
            sampler: Some(telemetry.source.clone()),
            gpus: gpus.iter().map(|g| g.uuid.clone()).collect(),
            idle_power_w: energy::mean_power_w(&gpus, idle),
        });
        Ok(())
    }

    /// The run's upload, once it came; `None` after `[agent] telemetry_wait_secs`.
    async fn await_telemetry(&self, run: Uuid) -> Result<Option<Telemetry>, AppError> {
        let within = Duration::from_secs(self.config().agent.telemetry_wait_secs);
        let db = self.db();
        crate::identity::agents::await_answer((within, LOOK_EVERY), || async move {
            let record = db.telemetry_of(run).await?;
            match record.and_then(|r| r.samples) {
                Some(samples) => serde_json::from_str(&samples)
                    .map(Some)
                    .map_err(|e| AppError::Internal(format!("stored samples: {e}"))),
                None => Ok(None),
            }
        })
        .await
    }

    /// What each of the listing's GPUs is judged against: the power limit its agent
    /// reported, and the board power of the GPU the listing names in the catalog.
    async fn power_bounds(
        &self,
        listing: &ListingRecord,
    ) -> Result<impl Fn(&str) -> PowerBounds + use<>, AppError> {
        let board_power_w = crate::records::catalog_gpu_of(listing).map(|g| g.board_power_w);
        let limits: Vec<(String, Option<f64>)> = self
            .agent_state(listing)
            .await?
            .map(|s| {
                s.facts
                    .gpus
                    .into_iter()
                    .map(|g| (g.uuid, g.power_limit_w))
                    .collect()
            })
            .unwrap_or_default();
        Ok(move |uuid: &str| PowerBounds {
            power_limit_w: limits
                .iter()
                .find(|(u, _)| u == uuid)
                .and_then(|(_, limit)| *limit),
            board_power_w,
        })
    }
}

/// A measured cell's window by the harness's clock; `None` for a cell not measured.
fn window_of(cell: &bench::DecodeCell) -> Option<(DateTime<Utc>, DateTime<Utc>)> {
    let from = DateTime::parse_from_rfc3339(cell.window_started_at.as_deref()?)
        .ok()?
        .with_timezone(&Utc);
    let seconds = cell.measured_s.filter(|s| *s > 0.0)?;
    let until = from + chrono::Duration::milliseconds((seconds * 1000.0).round() as i64);
    Some((from, until))
}

fn set(cell: &mut bench::DecodeCell, found: CellEnergy) {
    cell.mean_power_w = found.mean_power_w;
    cell.energy_j_per_token = found.energy_j_per_token;
    cell.energy_status = Some(found.status.as_str().to_owned());
}
