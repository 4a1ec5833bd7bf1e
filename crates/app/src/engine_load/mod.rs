//! An engine's load as the platform sees it, below the gateway (renters' streams) and the
//! measurements (the platform's own: probes, verifications, spot checks): the streams open to
//! each engine, counted once for every replica ([`counter`]), a stream's slot and the load it
//! was served at ([`slots`]), and which engines a request could not reach or found in trouble
//! within the last second.

mod counter;
mod slots;

use std::time::Duration;

use uuid::Uuid;

pub(crate) use counter::NotAdmitted;
pub(crate) use slots::PlatformLoad;
pub use slots::{GatewaySlot, Load};

/// Engines noted as unreachable or in trouble, at most.
const NOTED: u64 = 10_000;

/// The engines' load in this process: where streams are counted, and the last second's notes.
#[derive(Debug)]
pub(crate) struct EngineLoad {
    counter: counter::Counter,
    /// Listings whose engine a request could not reach within the last second.
    unreachable: moka::sync::Cache<Uuid, ()>,
    /// Listings whose engine answered a request 5xx or not in time within the last second.
    trouble: moka::sync::Cache<Uuid, ()>,
}

impl EngineLoad {
    /// Streams are counted in Redis when there is one, else on PostgreSQL, else (embedded on
    /// SQLite) in this process.
    pub(crate) fn new(redis: bool, backend: store::Backend) -> Self {
        let noted = || {
            moka::sync::Cache::builder()
                .max_capacity(NOTED)
                .time_to_live(Duration::from_secs(1))
                .build()
        };
        Self {
            counter: match (redis, backend) {
                (true, _) => counter::Counter::Redis,
                (false, store::Backend::Postgres) => counter::Counter::Postgres,
                (false, store::Backend::Sqlite) => counter::Counter::Local(Default::default()),
            },
            unreachable: noted(),
            trouble: noted(),
        }
    }

    /// Notes that a request could not reach `listing`'s engine; `false` when one was noted
    /// within the last second.
    pub(crate) fn note_unreachable(&self, listing: Uuid) -> bool {
        first_in_a_second(&self.unreachable, listing)
    }

    /// Notes that `listing`'s engine answered 5xx or not in time; `false` when it was noted
    /// within the last second.
    pub(crate) fn note_trouble(&self, listing: Uuid) -> bool {
        first_in_a_second(&self.trouble, listing)
    }
}

/// Notes `listing` in `seen` (entries live a second); whether it was not noted already.
fn first_in_a_second(seen: &moka::sync::Cache<Uuid, ()>, listing: Uuid) -> bool {
    let mut fresh = false;
    seen.get_with(listing, || fresh = true);
    fresh
}
