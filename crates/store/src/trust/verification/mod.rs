//! Verification runs (the database is their source of truth; queues only deliver ids), the
//! lease a worker holds while it runs one, the events of a run, and signed reports.

mod reports;
mod runs;

pub use reports::{
    CellFigures, CellRecord, NewReport, PublicReportQuery, ReportRecord, SigningKeyRecord,
};
pub use runs::{EventRecord, OverDailyQuota, RUN_FINISHED};
