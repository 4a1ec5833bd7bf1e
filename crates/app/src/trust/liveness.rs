//! Liveness: whether listed machines' engines answer, and the uptime and reliability that
//! follow. Workers probe every active listing once a period (claimed in the database, so
//! several workers never probe one machine twice in a period) with a one-token completion
//! of its served model, through the outbound rules and bounded like every engine read; a
//! gateway request whose connection the engine refused counts as down evidence too, and so
//! does a machine whose agent fell silent (three heartbeats missed: the machine, or its
//! network, is gone even where an engine elsewhere still answers for it). Probes go straight
//! to the engine, never through a booking's stream slots.

use std::sync::Arc;
use std::time::Duration as StdDuration;

use chrono::{DateTime, Duration, Utc};
use domain::ListingId;
use domain::uptime::{self, Liveness, Window};
use store::ListingRecord;
use uuid::Uuid;

use crate::windows::MaintenanceWindow;
use crate::{App, AppError};

/// The `predicateType` of a signed uptime statement.
pub const UPTIME_PREDICATE: &str = "https://gpumarket.dev/attestations/uptime/v1";

/// How many listings one pass signs statements for, per period.
const STATEMENTS_PER_PASS: u64 = 500;
/// How many ended periods each pass looks at: a week of days, should signing have stopped.
const PERIODS_LOOKED_BACK: i64 = 7;

/// A signed statement of a listing's uptime over one period.
#[derive(Debug, Clone, PartialEq)]
pub struct UptimeStatement {
    pub id: Uuid,
    pub period_start: DateTime<Utc>,
    pub period_end: DateTime<Utc>,
    pub uptime: Option<f64>,
    /// The DSSE envelope.
    pub envelope: serde_json::Value,
}

/// How often a prober looks for due probes: a quarter of the period, between 0.1 and 1 s.
pub fn tick(period: StdDuration) -> StdDuration {
    (period / 4).clamp(StdDuration::from_millis(100), StdDuration::from_secs(1))
}

/// The most probes one worker claims per tick: twice the fleet's share of a tick (so a
/// fleet is spread over the period, and a worker alone keeps up), at least 8.
pub fn claims_per_tick(listings: u64, period: StdDuration) -> u64 {
    let per_tick = listings as f64 * tick(period).as_secs_f64() / period.as_secs_f64().max(1e-3);
    ((2.0 * per_tick).ceil() as u64).max(8)
}

/// A listing's uptime as anyone may read it.
#[derive(Debug, Clone, PartialEq)]
pub struct Uptime {
    pub listing_id: ListingId,
    pub state: Liveness,
    /// Shares of the last 24 hours, 7 and 30 days the machine was up (see
    /// [`domain::uptime::uptime`]); `None` when nothing was observed.
    pub last_24h: Option<f64>,
    pub last_7d: Option<f64>,
    pub last_30d: Option<f64>,
    /// The 30-day uptime, as search filters and sorts on it.
    pub reliability: Option<f64>,
    /// Each of the last 30 days (UTC), oldest first, with its uptime.
    pub days: Vec<(chrono::NaiveDate, Option<f64>)>,
    /// Maintenance windows that have not ended, soonest first.
    pub windows: Vec<MaintenanceWindow>,
    /// What windows announced in the last 30 days took of bookings.
    pub interruptions_30d: store::InterruptionFigures,
    /// The latest signed statements, newest first (at most 30).
    pub statements: Vec<UptimeStatement>,
    /// The probe period, seconds: how closely an outage is measured.
    pub probe_every_secs: u64,
}

impl App {
    /// One prober's round: claims the due probes it may (see [`claims_per_tick`]), probes
    /// them at once, each recording what it found, and waits at most a tick for them. A
    /// machine inside a maintenance window is not probed. Returns how many were started.
    pub async fn probe_due(&self) -> Result<usize, AppError> {
        let settings = &self.config().liveness;
        let period = settings.period();
        // No more than the places free: probes of slow engines still waiting hold theirs.
        let free = self.inner.trust.probing.available_permits() as u64;
        let limit = claims_per_tick(self.db().probed_listings().await?, period).min(free);
        if limit == 0 {
            return Ok(0);
        }
        let now = Utc::now();
        let claimed = self
            .db()
            .claim_probes(now, limit, || {
                let jitter = 0.9 + 0.2 * crate::trust::spot_checks::random_fraction();
                now + Duration::milliseconds((period.as_millis() as f64 * jitter) as i64)
            })
            .await?;
        if claimed.is_empty() {
            return Ok(0);
        }
        let ids: Vec<Uuid> = claimed.iter().map(|l| l.id).collect();
        let serviced = self.db().in_maintenance(&ids, now).await?;
        let mut probes = tokio::task::JoinSet::new();
        for listing in claimed.into_iter().filter(|l| !serviced.contains(&l.id)) {
            let Ok(place) = Arc::clone(&self.inner.trust.probing).try_acquire_owned() else {
                // Another round of this process took the place meanwhile: probed next period.
                break;
            };
            let app = self.clone();
            probes.spawn(async move {
                let _place = place;
                let up = app.probe(&listing).await;
                if let Err(e) = app.observe_liveness(listing.id, up, Utc::now()).await {
                    tracing::warn!(listing = %listing.id, error = %e, "recording a probe failed");
                }
            });
        }
        let probed = probes.len();
        // A tick for the round to finish; an engine slower than that (up to the probe's
        // timeout) goes on being probed while the next round is claimed, so one slow engine
        // never holds the schedule back.
        let _ = tokio::time::timeout(tick(period), async {
            while probes.join_next().await.is_some() {}
        })
        .await;
        probes.detach_all();
        Ok(probed)
    }

    /// Probes one listing's engine through the gateway's client (see [`probe_engine`]); a
    /// machine whose agent is silent is down without a probe.
    async fn probe(&self, listing: &ListingRecord) -> bool {
        if self.agent_silent(listing.id).await {
            return false;
        }
        let Ok(key) = self.engine_key_of(listing) else {
            return false;
        };
        // Counted in the engine's load while it runs, like a renter's stream.
        let slot = self.platform_slot(listing, listing.id).await;
        let up = crate::trust::completion::probe_engine(
            self.gateway_client(),
            (&listing.engine_base_url, &listing.engine_model),
            key.as_ref().map(domain::EngineKey::expose),
            StdDuration::from_millis(self.config().liveness.liveness_timeout_ms),
            self.outbound_policy(),
        )
        .await;
        if let Some(slot) = slot {
            slot.release().await;
        }
        up
    }

    /// Records an observation of a listing's engine, and logs a change of state.
    pub async fn observe_liveness(
        &self,
        listing: Uuid,
        up: bool,
        at: DateTime<Utc>,
    ) -> Result<(), AppError> {
        let judging = self.config().liveness.judging();
        if let Some(observed) = self.db().record_liveness(listing, up, at, judging).await?
            && observed.flipped()
        {
            tracing::info!(%listing, up, reliability = ?observed.reliability, "a machine's liveness changed");
        }
        Ok(())
    }

    /// A gateway request could not connect to the listing's engine: down evidence, recorded
    /// at most once a second per listing by this process.
    /// Evidence a listing's engine may be failing that a renter's own request could also
    /// cause (a 5xx answer, a timeout): never recorded as down — it brings the listing's
    /// next probe forward to now, and the probe, with a prompt of its own, decides. At most
    /// once a second per listing.
    pub fn engine_trouble(&self, listing: Uuid) {
        if !self.inner.engines.note_trouble(listing) {
            return;
        }
        let app = self.clone();
        tokio::spawn(async move {
            if let Err(e) = app.db().probe_soon(listing, Utc::now()).await {
                tracing::warn!(%listing, error = %e, "bringing a probe forward failed");
            }
        });
    }

    pub fn engine_unreachable(&self, listing: Uuid) {
        if !self.inner.engines.note_unreachable(listing) {
            return;
        }
        let app = self.clone();
        tokio::spawn(async move {
            if let Err(e) = app.observe_liveness(listing, false, Utc::now()).await {
                tracing::warn!(%listing, error = %e, "recording an unreachable engine failed");
            }
        });
    }

    /// Signs the statements due: for each of the last seven settled periods of
    /// `uptime_statement_secs` (UTC days by default), each listing observed in it without a
    /// statement yet gets one, logged in the same transaction. A period is settled once it
    /// ended three probe periods and a probe's timeout ago (its last observations are in).
    /// Any number of replicas may run this: one statement per listing and period wins.
    /// Returns how many were signed.
    pub async fn sign_uptime_statements(&self) -> Result<usize, AppError> {
        let settings = &self.config().liveness;
        let period = settings.uptime_statement_secs.max(1) as i64;
        // A period is signed once its last observations are in: after the gap that still
        // joins them (three probe periods) and a probe's timeout.
        let (gap, _) = settings.judging();
        let settle = gap + Duration::milliseconds(settings.liveness_timeout_ms as i64);
        let settled = (Utc::now() - settle).timestamp();
        let latest_end = settled.div_euclid(period) * period;
        let mut signed = 0;
        for back in 1..=PERIODS_LOOKED_BACK {
            let start = DateTime::from_timestamp(latest_end - back * period, 0)
                .ok_or_else(|| AppError::Internal("a period before the epoch".into()))?;
            let end = start + Duration::seconds(period);
            for listing in self
                .db()
                .listings_to_attest((start, end), STATEMENTS_PER_PASS)
                .await?
            {
                if self.sign_uptime_statement(listing, (start, end)).await? {
                    signed += 1;
                }
            }
        }
        Ok(signed)
    }

    /// One listing's statement over `[start, end)`: its observed intervals and maintenance
    /// windows clipped to the period, and the period's uptime by the published rule; no
    /// window's reason, no engine address. `false` when another replica signed it first.
    async fn sign_uptime_statement(
        &self,
        listing: Uuid,
        (start, end): (DateTime<Utc>, DateTime<Utc>),
    ) -> Result<bool, AppError> {
        let (spans, windows) = self.db().uptime_facts(listing, start, end).await?;
        let (_, notice) = self.config().liveness.judging();
        let judged: Vec<Window> = windows
            .iter()
            .map(|w| store::window_of(w, notice))
            .collect();
        let observed: Vec<serde_json::Value> = spans
            .iter()
            .map(|s| (s.up, s.from.max(start), s.until.min(end)))
            .filter(|(_, from, until)| from <= until)
            .map(|(up, from, until)| {
                serde_json::json!({"state": if up { "up" } else { "down" }, "from": from, "until": until})
            })
            .collect();
        let maintenance: Vec<serde_json::Value> = judged
            .iter()
            .map(|w| {
                serde_json::json!({
                    "from": w.from.max(start),
                    "until": w.until.min(end),
                    "announced_in_time": w.in_time,
                })
            })
            .collect();
        let uptime = uptime::uptime(&spans, &judged, start, end);
        let predicate = serde_json::json!({
            "listing_id": listing,
            "period": {"start": start, "end": end},
            "observed": observed,
            "maintenance": maintenance,
            "uptime": uptime,
            "probe_every_secs": self.config().liveness.liveness_every_secs,
            "rule": "uptime = time up / (time up + time down) over the period: a state holds from the observation that first saw it to the one that first saw otherwise; time inside maintenance announced in time is left out, inside maintenance announced late it is down; time no observation covers is left out",
        });
        let digest = crate::trust::reports::sha256_hex(&attest::canonical_json(&predicate));
        let statement = attest::statement(
            &format!("gpumarket:listing:{listing}:uptime:{}", start.to_rfc3339()),
            &digest,
            UPTIME_PREDICATE,
            predicate,
        );
        let envelope = serde_json::to_value(attest::sign_statement(self.signer(), &statement))
            .map_err(|e| AppError::Internal(e.to_string()))?;
        let (leaf, _) = attest::log_leaf(&envelope);
        let record = store::UptimeStatementRecord {
            id: Uuid::now_v7(),
            listing_id: listing,
            period_start: start,
            period_end: end,
            uptime,
            envelope: envelope.to_string(),
            created_at: Utc::now(),
        };
        Ok(self
            .db()
            .insert_uptime_statement(record, leaf)
            .await?
            .is_some())
    }

    /// A listing's uptime, state and coming maintenance. Public.
    pub async fn uptime(&self, id: ListingId) -> Result<Uptime, AppError> {
        let listing = self.listing_record(id.as_uuid()).await?;
        let now = Utc::now();
        let from = now - Duration::days(store::RELIABILITY_DAYS);
        let (spans, windows) = self.db().uptime_facts(listing.id, from, now).await?;
        let (_, notice) = self.config().liveness.judging();
        let judged: Vec<Window> = windows
            .iter()
            .map(|w| store::window_of(w, notice))
            .collect();
        let share = |days: i64| uptime::uptime(&spans, &judged, now - Duration::days(days), now);
        let observed = listing.observed_liveness();
        let coming = self.db().maintenance_windows(listing.id, now).await?;
        let all: Vec<Window> = coming.iter().map(|w| store::window_of(w, notice)).collect();
        let today = now.date_naive();
        let days = (0..30)
            .rev()
            .map(|back| {
                let day = today - chrono::Days::new(back);
                let start = day.and_time(chrono::NaiveTime::MIN).and_utc();
                (
                    day,
                    uptime::uptime(&spans, &judged, start, (start + Duration::days(1)).min(now)),
                )
            })
            .collect();
        Ok(Uptime {
            listing_id: id,
            state: Liveness::at(observed, &all, now),
            last_24h: share(1),
            last_7d: share(7),
            last_30d: share(30),
            reliability: listing.reliability,
            days,
            windows: coming.into_iter().map(|w| self.window_view(w)).collect(),
            interruptions_30d: self
                .db()
                .interruption_figures(listing.id, now - Duration::days(30), now)
                .await?,
            statements: self
                .db()
                .uptime_statements(listing.id, 30)
                .await?
                .into_iter()
                .map(|s| UptimeStatement {
                    id: s.id,
                    period_start: s.period_start,
                    period_end: s.period_end,
                    uptime: s.uptime,
                    envelope: serde_json::from_str(&s.envelope).unwrap_or_default(),
                })
                .collect(),
            probe_every_secs: self.config().liveness.liveness_every_secs,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_fleet_is_spread_over_the_period() {
        let period = StdDuration::from_secs(300);
        assert_eq!(tick(period), StdDuration::from_secs(1));
        assert_eq!(
            tick(StdDuration::from_secs(2)),
            StdDuration::from_millis(500)
        );
        // 10,000 listings over 300 s: 34 a second, a worker claims up to twice that.
        assert_eq!(claims_per_tick(10_000, period), 67);
        assert_eq!(claims_per_tick(3, period), 8);
    }
}
