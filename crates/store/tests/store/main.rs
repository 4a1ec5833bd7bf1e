//! Store integration tests, on both backends: migrations and the repositories' guarantees.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::sync::Arc;

use chrono::Utc;
use domain::{DisplayName, Email, ListingInput, ListingSpec, OrgId, OrgName, UserId};
use store::tools::testing::TestDatabase;
use store::{Backend, Db, ListingRecord};
use uuid::Uuid;

mod bookings;
mod migrations;
mod search;
mod webhooks;
mod writers;

/// A database with one user, an organisation of theirs and `n` listings of it with `gpus`
/// GPUs each.
pub async fn organisation(
    backend: Backend,
    gpus: i64,
    n: usize,
) -> (TestDatabase, Arc<Db>, UserId, Vec<ListingRecord>) {
    let database = TestDatabase::new(backend).await.unwrap();
    let db = Arc::new(Db::connect(database.url()).await.unwrap());
    let now = Utc::now();
    let user = new_user(&db, "p@example.com").await;
    let org = db
        .create_org(OrgId::new(), &OrgName::parse("P").unwrap(), user, now)
        .await
        .unwrap();
    let spec = ListingSpec::parse(&ListingInput {
        title: "t",
        gpu_model: "g",
        gpu_count: gpus,
        vram_gb: 1,
        cpu_model: "c",
        ram_gb: 1,
        region: "r",
        price_per_gpu_hour: 1,
        min_bid_per_gpu_hour: None,
        currency: "USD",
        engine_base_url: "http://engine.example",
        engine_model: "m",
        engine_name: None,
        engine_api_key: None,
        available_from: None,
        available_until: None,
        ssh: None,
        https_url: None,
        catalog_gpu: None,
        catalog_model: None,
        guarantee_min_fraction: None,
        containers: None,
    })
    .unwrap();
    let mut listings = Vec::new();
    for _ in 0..n {
        listings.push(
            db.insert_listing(Uuid::now_v7(), org.id, &spec, now)
                .await
                .unwrap(),
        );
    }
    (database, db, user, listings)
}

/// A new user with this address.
pub async fn new_user(db: &Db, email: &str) -> UserId {
    let user = UserId::new();
    db.insert_user(
        user,
        &Email::parse(email).unwrap(),
        &DisplayName::parse("U").unwrap(),
        "x".into(),
        Utc::now(),
    )
    .await
    .unwrap();
    user
}
