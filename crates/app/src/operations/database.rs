//! Operations on a database outside a running application: applying migrations
//! (`gpumarket migrate`), and filling a database with the synthetic marketplace that
//! `gpumarket search-bench` measures search on.

use store::Db;

pub use store::tools::synthetic::{CELLS, GPU_MODELS, REGIONS, Rng};

use crate::AppError;

/// The storage backend's name for a database URL's connection: `postgres` or `sqlite`.
fn backend_name(db: &Db) -> &'static str {
    match db.backend() {
        store::Backend::Postgres => "postgres",
        store::Backend::Sqlite => "sqlite",
    }
}

/// Applies every pending migration; the names of all applied, oldest first.
pub async fn migrate(database_url: &str) -> Result<Vec<String>, AppError> {
    let db = Db::connect(database_url).await?;
    db.migrate().await?;
    let applied = db.applied_migrations().await?;
    db.close().await?;
    Ok(applied)
}

/// This binary's migrations the database has not applied yet (none when it is ahead).
pub async fn unapplied_migrations(database_url: &str) -> Result<Vec<String>, AppError> {
    let db = Db::connect(database_url).await?;
    let pending = db.unapplied_migrations().await;
    db.close().await?;
    Ok(pending?)
}

/// What [`synthetic_marketplace`] found and loaded.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct SyntheticMarketplace {
    /// `postgres` or `sqlite`.
    pub backend: &'static str,
    /// Listings the database held before.
    pub present: u64,
    pub loaded_listings: u64,
    pub loaded_verified: u64,
    pub loaded_cells: u64,
    pub loaded_bookings: u64,
}

/// Migrates the database and tops it up to `listings` synthetic listings (from `seed`),
/// then refreshes the planner's statistics.
pub async fn synthetic_marketplace(
    database_url: &str,
    listings: u64,
    seed: u64,
) -> Result<SyntheticMarketplace, AppError> {
    let db = Db::connect(database_url).await?;
    db.migrate().await?;
    let present = db.count_listings().await?;
    let mut result = SyntheticMarketplace {
        backend: backend_name(&db),
        present,
        ..SyntheticMarketplace::default()
    };
    if present < listings {
        let loaded = db.load_synthetic(listings - present, seed, 5000).await?;
        result.loaded_listings = loaded.listings;
        result.loaded_verified = loaded.verified;
        result.loaded_cells = loaded.cells;
        result.loaded_bookings = loaded.bookings;
    }
    db.analyze().await?;
    db.close().await?;
    Ok(result)
}

impl crate::App {
    /// The storage backend's name: `postgres` or `sqlite`.
    pub fn backend_name(&self) -> &'static str {
        backend_name(self.db())
    }
}
