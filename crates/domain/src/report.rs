//! A report's cells as the standard names them: which part of the matrix a cell measured, and
//! its verdict. Stored and served by these names; compared as these enums everywhere else.

use std::fmt;

use serde::{Deserialize, Serialize};

/// Which part of the matrix a cell measured.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum CellPhase {
    /// Streams generating tokens at a context and a concurrency.
    Decode,
    /// One cold prompt of a context, for its prefill rate.
    Prefill,
}

impl CellPhase {
    pub const fn as_str(self) -> &'static str {
        match self {
            Self::Decode => "decode",
            Self::Prefill => "prefill",
        }
    }

    /// The phase a stored name stands for.
    pub fn parse(name: &str) -> Option<Self> {
        [Self::Decode, Self::Prefill]
            .into_iter()
            .find(|p| p.as_str() == name)
    }
}

/// A cell's verdict (the standard's "Status" column), serialized by its stored name; the
/// harness's reports carry it too (`bench::Status`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum CellStatus {
    /// Measured as the standard defines it: its figures count.
    Valid,
    /// The server ran fewer streams than asked and queued the rest: measured at saturation.
    RequestsQueued,
    /// The context and output do not fit the engine's model length or KV cache.
    OverCapacity,
    /// Not measured as the standard requires; its reasons say why.
    Invalid,
    /// The client, not the server, limited the measurement.
    ClientBound,
}

impl CellStatus {
    pub const ALL: [Self; 5] = [
        Self::Valid,
        Self::RequestsQueued,
        Self::OverCapacity,
        Self::Invalid,
        Self::ClientBound,
    ];

    /// The stored and served name (`requests_queued`).
    pub const fn as_str(self) -> &'static str {
        match self {
            Self::Valid => "valid",
            Self::RequestsQueued => "requests_queued",
            Self::OverCapacity => "over_capacity",
            Self::Invalid => "invalid",
            Self::ClientBound => "client_bound",
        }
    }

    /// In words (`requests queued`).
    pub const fn words(self) -> &'static str {
        match self {
            Self::Valid => "valid",
            Self::RequestsQueued => "requests queued",
            Self::OverCapacity => "over capacity",
            Self::Invalid => "invalid",
            Self::ClientBound => "client bound",
        }
    }

    /// The status a stored name stands for.
    pub fn parse(name: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|s| s.as_str() == name)
    }
}

impl fmt::Display for CellStatus {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip_and_unknown_ones_are_none() {
        for status in CellStatus::ALL {
            assert_eq!(CellStatus::parse(status.as_str()), Some(status));
            assert_eq!(status.words().replace(' ', "_"), status.as_str());
        }
        for phase in [CellPhase::Decode, CellPhase::Prefill] {
            assert_eq!(CellPhase::parse(phase.as_str()), Some(phase));
        }
        assert_eq!(CellStatus::parse("Valid"), None);
        assert_eq!(CellPhase::parse("warmup"), None);
    }
}
