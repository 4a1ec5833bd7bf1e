//! Trust: verification runs, spot checks, signed reports, the transparency log, community
//! submissions, liveness.

pub(crate) mod badges;
pub(crate) mod catalog_cells;
pub(crate) mod community_runs;
pub(crate) mod liveness;
pub(crate) mod org_reports;
pub(crate) mod preflights;
pub(crate) mod projection;
pub(crate) mod runs;
pub(crate) mod shares;
pub(crate) mod telemetry;
pub(crate) mod transparency;
pub(crate) mod verification;
