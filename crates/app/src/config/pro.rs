//! `[pro]`: what the Pro plan changes.

use documented::{Documented, DocumentedFields};
use serde::{Deserialize, Serialize};

use super::{Checked, ensure};

/// The Pro plan's limits.
#[derive(Debug, Clone, Deserialize, Serialize, Documented, DocumentedFields)]
#[serde(deny_unknown_fields, default)]
pub struct ProSettings {
    /// Pro's request rates: this many times every rate-limit class of the free plan.
    pub rate_limit_scale: u32,
    /// Pro's verification runs an organisation may ask for in any 24 hours.
    pub verification_runs_per_org_per_day: u32,
    /// Pro's spot-check period: each verified listing of a Pro organisation is checked once
    /// in every period this long.
    pub spot_check_every_secs: u64,
}

impl Default for ProSettings {
    fn default() -> Self {
        Self {
            rate_limit_scale: 5,
            verification_runs_per_org_per_day: 500,
            spot_check_every_secs: 24 * 3600,
        }
    }
}

impl ProSettings {
    pub(super) fn check(&self) -> Checked {
        ensure(
            self.rate_limit_scale >= 1,
            "rate_limit_scale",
            "must be at least 1",
        )?;
        ensure(
            self.spot_check_every_secs >= 1,
            "spot_check_every_secs",
            "must be at least 1",
        )
    }
}
