//! Signed reports and their exports, their share links, the leaderboard, organisation
//! reports, signing keys.

pub mod compare;
pub mod get;
pub mod leaderboard;
pub mod list;
pub mod matrix;
pub mod org_report;
pub mod proof;
mod render;
pub mod share;
pub mod signing_keys;

use serde::Deserialize;
use utoipa::IntoParams;

/// How the holder of a share link reads a private report.
#[derive(Debug, Deserialize, IntoParams)]
pub struct ShareQuery {
    /// A share link's token (`POST /v1/reports/{id}/share`): a private report is shown to
    /// its organisation's members and to holders of a live link only.
    pub share: Option<String>,
}
