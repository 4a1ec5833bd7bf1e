//! The change feed's local half, below every writer: how many writes this process made to
//! what search reads, so that search from memory (`market/search/memory/`) catches up with its own
//! process's writes before it answers.

use std::sync::atomic::{AtomicU64, Ordering};

use crate::Db;

/// Writes this process made to what search reads, shared by every clone of a [`Db`].
#[derive(Debug, Default)]
pub(crate) struct LocalWrites(AtomicU64);

impl LocalWrites {
    /// How many so far.
    pub(crate) fn count(&self) -> u64 {
        self.0.load(Ordering::Acquire)
    }
}

/// See [`Db::search_touch`].
pub(crate) struct SearchTouch<'a>(&'a LocalWrites);

impl Drop for SearchTouch<'_> {
    fn drop(&mut self) {
        self.0.0.fetch_add(1, Ordering::AcqRel);
    }
}

impl Db {
    /// Notes, when dropped, that this process may have changed what search reads: the next
    /// search from memory catches up first. A write path holds one from its start, so the
    /// note follows its commit (an error's note costs one catch-up, nothing else).
    pub(crate) fn search_touch(&self) -> SearchTouch<'_> {
        SearchTouch(&self.writes)
    }
}
