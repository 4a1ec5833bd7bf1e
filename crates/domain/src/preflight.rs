//! A listing's preflight checks: each one's answer, and what the checks together say. The
//! checks themselves are the trust context's (`app::trust::preflight`).

use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum CheckState {
    Pass,
    /// Would not stop a verification, but something in its report will show it.
    Warn,
    /// Would fail a verification.
    Fail,
    /// Not asked: what it needs is missing (no agent) or an earlier check failed.
    Skip,
}

/// One check's answer.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Check {
    pub check: String,
    pub state: CheckState,
    /// What was seen.
    pub evidence: String,
    /// What to do about it (empty when nothing is needed).
    pub suggested_steps: Vec<String>,
}

impl Check {
    pub fn new(check: &str, state: CheckState, evidence: impl Into<String>) -> Self {
        Self {
            check: check.to_owned(),
            state,
            evidence: evidence.into(),
            suggested_steps: Vec::new(),
        }
    }

    pub fn pass(check: &str, evidence: impl Into<String>) -> Self {
        Self::new(check, CheckState::Pass, evidence)
    }

    pub fn skip(check: &str, evidence: impl Into<String>) -> Self {
        Self::new(check, CheckState::Skip, evidence)
    }

    pub fn fail(check: &str, evidence: impl Into<String>, steps: &[&str]) -> Self {
        Self::new(check, CheckState::Fail, evidence).steps(steps)
    }

    pub fn warn(check: &str, evidence: impl Into<String>, steps: &[&str]) -> Self {
        Self::new(check, CheckState::Warn, evidence).steps(steps)
    }

    pub fn steps(mut self, steps: &[&str]) -> Self {
        self.suggested_steps = steps.iter().map(|s| (*s).to_owned()).collect();
        self
    }
}

/// Whether no check failed.
pub fn passed(checks: &[Check]) -> bool {
    checks.iter().all(|c| c.state != CheckState::Fail)
}

/// The failed checks in a line: a run's failure reason, a log line.
pub fn failures(checks: &[Check]) -> String {
    checks
        .iter()
        .filter(|c| c.state == CheckState::Fail)
        .map(|c| format!("{}: {}", c.check, c.evidence))
        .collect::<Vec<_>>()
        .join("; ")
}

/// Why a preflight was made.
pub mod kind {
    /// A member asked (`POST /listings/{id}/preflight`): it spends the verification budget.
    pub const ASKED: &str = "asked";
    /// Before a verification request was accepted.
    pub const REQUEST: &str = "request";
    /// At a run's start (a verification or a spot check: the run's kind says which).
    pub const RUN: &str = "run";
}
