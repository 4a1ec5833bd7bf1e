//! `[reports]`: reports' identity and the transparency log's checkpoints.

use documented::{Documented, DocumentedFields};
use serde::{Deserialize, Serialize};

use super::{Checked, ensure};

/// Organisation reports and the transparency log.
#[derive(Debug, Clone, Deserialize, Serialize, Documented, DocumentedFields)]
#[serde(deny_unknown_fields, default)]
pub struct ReportSettings {
    /// An organisation report is signed again (and logged) at most this often, seconds;
    /// changes within the period show in the next snapshot.
    pub org_report_min_secs: u64,
    /// The transparency log's origin: the first line of its checkpoints and its note key's
    /// name. Unset: the host of `public_url` (with its port, when it names one) and `/log`,
    /// e.g. `127.0.0.1:8080/log`.
    pub log_origin: Option<String>,
    /// A new signed checkpoint at most this often, when the log grew.
    pub log_checkpoint_secs: u64,
}

impl Default for ReportSettings {
    fn default() -> Self {
        Self {
            org_report_min_secs: 3600,
            log_origin: None,
            log_checkpoint_secs: 10,
        }
    }
}

impl ReportSettings {
    pub(super) fn check(&self) -> Checked {
        ensure(
            self.log_origin.as_ref().is_none_or(|origin| {
                !origin.is_empty() && !origin.chars().any(|c| c.is_whitespace() || c == '+')
            }),
            "log_origin",
            "must be non-empty, without spaces or `+`",
        )?;
        ensure(
            self.log_checkpoint_secs >= 1,
            "log_checkpoint_secs",
            "must be at least 1",
        )
    }
}
