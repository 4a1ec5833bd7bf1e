//! `[verification]`: the worker, its runs and spot checks.

use documented::{Documented, DocumentedFields};
use serde::{Deserialize, Serialize};

use super::{Checked, ensure};

/// The verification worker, badges and spot checks.
#[derive(Debug, Clone, Deserialize, Serialize, Documented, DocumentedFields)]
#[serde(deny_unknown_fields, default)]
pub struct VerificationSettings {
    /// Whether `serve` runs a verification worker itself. Unset: yes when there is no Redis.
    pub worker_in_process: Option<bool>,
    /// Where `gpumarket worker` answers its probes and metrics (`/healthz`, `/readyz`,
    /// `/metrics`), e.g. `0.0.0.0:9090`. Unset: a worker opens no port.
    pub worker_listen: Option<String>,
    /// A worker's claim on a run, renewed every third of it; a dead worker's run is taken
    /// over after it runs out.
    pub worker_lease_secs: u64,
    /// How often lost runs (queued and undelivered for 3 intervals, or on an expired lease)
    /// are dispatched again, and how often the booking sweeper runs.
    pub reconcile_interval_secs: u64,
    /// Whether listings' engines may be at internal addresses (loopback, RFC 1918,
    /// link-local, CGNAT, unique-local, multicast). Off: a listing's `engine.base_url` must
    /// be public (422 otherwise), checked when the listing is saved and again at every
    /// connection. `serve --demo` turns it on for its local simulator.
    pub engine_allow_private: bool,
    /// The longest one verification (or spot-check) run may take, from its start to its
    /// report; past it the run stops and fails with `deadline_exceeded`.
    pub verification_deadline_secs: u64,
    /// How long a badge lasts without a passing spot check.
    pub verification_ttl_secs: u64,
    /// Every period this long, each verified listing gets one unannounced spot check at a
    /// random moment.
    pub spot_check_every_secs: u64,
    /// A spot check below this fraction of the verified total tok/s, at any checked cell,
    /// demotes the listing.
    pub spot_check_min_fraction: f64,
    /// The nominal window of each decode cell of a `quick` verification, seconds (the
    /// adaptive rule ends a window from a third of it). The `standard` profile keeps the
    /// reference page's 30 s.
    pub quick_measure_secs: f64,
}

impl Default for VerificationSettings {
    fn default() -> Self {
        Self {
            worker_in_process: None,
            worker_listen: None,
            worker_lease_secs: 30,
            reconcile_interval_secs: 10,
            engine_allow_private: false,
            verification_deadline_secs: 3 * 3600,
            verification_ttl_secs: 30 * 24 * 3600,
            spot_check_every_secs: 7 * 24 * 3600,
            spot_check_min_fraction: 0.85,
            quick_measure_secs: 3.0,
        }
    }
}

impl VerificationSettings {
    /// The harness parameters of a run of `profile`: `standard`, else `quick` with its
    /// window from `quick_measure_secs`.
    pub fn params(&self, profile: &str) -> bench::Parameters {
        match profile {
            "standard" => bench::params::standard(),
            _ => bench::Parameters {
                measure_secs: self.quick_measure_secs,
                ..bench::params::quick()
            },
        }
    }

    pub(super) fn check(&self) -> Checked {
        if let Some(listen) = &self.worker_listen {
            ensure(
                listen.parse::<std::net::SocketAddr>().is_ok(),
                "worker_listen",
                format!("{listen:?} is not an address like 0.0.0.0:9090"),
            )?;
        }
        ensure(
            self.worker_lease_secs >= 3,
            "worker_lease_secs",
            "must be at least 3",
        )?;
        ensure(
            self.reconcile_interval_secs >= 1,
            "reconcile_interval_secs",
            "must be at least 1",
        )?;
        ensure(
            self.verification_deadline_secs >= 60,
            "verification_deadline_secs",
            "must be at least 60",
        )?;
        ensure(
            self.verification_ttl_secs >= 1,
            "verification_ttl_secs",
            "must be at least 1",
        )?;
        ensure(
            self.spot_check_every_secs >= 1,
            "spot_check_every_secs",
            "must be at least 1",
        )?;
        ensure(
            self.spot_check_min_fraction > 0.0 && self.spot_check_min_fraction <= 1.0,
            "spot_check_min_fraction",
            "must be in (0, 1]",
        )?;
        ensure(
            (0.5..=60.0).contains(&self.quick_measure_secs),
            "quick_measure_secs",
            "must be between 0.5 and 60",
        )
    }
}
