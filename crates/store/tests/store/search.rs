//! Search from memory answers exactly what the database's planner answers: every search
//! kind (headline and per-cell, four orders, every filter, cursor pages), over a random
//! marketplace with many ties, before and after changes other replicas make.

use std::time::{Duration, Instant};

use chrono::{DateTime, Utc};
use store::synthetic::Rng;
use store::testing::{
    SEARCH_CELLS, SEARCH_MODELS, SEARCH_REGIONS, search_change, search_marketplace,
};
use store::{After, Backend, Db, ListingHit, ListingQuery, MemoryOptions, MemoryState, SortKey};
use uuid::Uuid;

use crate::organisation;

fn maybe<T>(rng: &mut Rng, value: impl FnOnce(&mut Rng) -> T) -> Option<T> {
    (rng.below(3) == 0).then(|| value(rng))
}

fn random_query(rng: &mut Rng) -> ListingQuery {
    let day = |d: i64| DateTime::<Utc>::from_timestamp(1_800_000_000 + d * 86_400, 0).unwrap();
    let mut models: Vec<&str> = SEARCH_MODELS.to_vec();
    models.push("absent");
    let mut cells: Vec<(i64, i64)> = SEARCH_CELLS.to_vec();
    cells.push((4096, 2));
    ListingQuery {
        gpu_model: maybe(rng, |r| r.pick(&models).to_owned()),
        gpu: maybe(rng, |r| {
            let names: Vec<String> = models
                .iter()
                .filter(|_| r.below(2) == 0)
                .map(|m| (*m).to_owned())
                .collect();
            ("h100".to_owned(), names)
        }),
        min_vram_gb: maybe(rng, |r| r.pick(&[24, 48, 80])),
        max_price: maybe(rng, |r| r.pick(&[10, 20, 30])),
        currency: maybe(rng, |r| r.pick(&["USD", "EUR"]).to_owned()),
        region: maybe(rng, |r| r.pick(&SEARCH_REGIONS).to_owned()),
        verified_only: rng.below(3) == 0,
        min_gpu_count: maybe(rng, |r| r.pick(&[1, 2, 4])),
        cell: (rng.below(2) == 0).then(|| rng.pick(&cells)),
        min_total_tok_s: maybe(rng, |r| r.pick(&[150.0, 250.5, 300.0])),
        min_reliability: maybe(rng, |r| r.pick(&[0.5, 0.9, 1.0])),
        window: maybe(rng, |r| r.pick(&[(day(5), day(15)), (day(12), day(30))])),
        sort: rng.pick(&[
            SortKey::Price,
            SortKey::TokS,
            SortKey::PricePerMtok,
            SortKey::Reliability,
        ]),
        after: None,
        limit: 1 + rng.below(7),
    }
}

fn empty_query() -> ListingQuery {
    ListingQuery {
        gpu_model: None,
        gpu: None,
        min_vram_gb: None,
        max_price: None,
        currency: None,
        region: None,
        verified_only: false,
        min_gpu_count: None,
        cell: None,
        min_total_tok_s: None,
        min_reliability: None,
        window: None,
        sort: SortKey::Price,
        after: None,
        limit: 20,
    }
}

type Row = (Uuid, Option<f64>, Option<f64>, store::ListingRecord);

fn rows(hits: &[ListingHit]) -> Vec<Row> {
    hits.iter()
        .map(|h| {
            (
                h.listing.id,
                h.total_tok_s,
                h.price_per_mtok,
                (*h.listing).clone(),
            )
        })
        .collect()
}

/// Every page of `query` from memory and from the database, compared page by page; the
/// pages' ids. `Err` names the first difference.
async fn compare(db: &Db, mut query: ListingQuery) -> Result<Vec<Uuid>, String> {
    let mut seen = Vec::new();
    for _ in 0..100 {
        let memory = db.search_listings(&query).await.unwrap();
        let database = db.search_listings_in_database(&query).await.unwrap();
        if rows(&memory) != rows(&database) {
            return Err(format!(
                "{query:?}\n memory:   {:?}\n database: {:?}",
                memory.iter().map(|h| h.listing.id).collect::<Vec<_>>(),
                database.iter().map(|h| h.listing.id).collect::<Vec<_>>()
            ));
        }
        seen.extend(memory.iter().map(|h| h.listing.id));
        match memory.last() {
            Some(last) if memory.len() as u64 == query.limit => {
                query.after = Some(After {
                    value: last.sort_value(query.sort).unwrap_or_default(),
                    id: last.listing.id,
                });
            }
            _ => return Ok(seen),
        }
    }
    Err("more than 100 pages".into())
}

async fn wait_serving(db: &Db) {
    let deadline = Instant::now() + Duration::from_secs(10);
    while !matches!(db.search_memory_state(), MemoryState::Serving { .. }) {
        assert!(Instant::now() < deadline, "{:?}", db.search_memory_state());
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
}

async fn memory_answers_as_the_database(backend: Backend) {
    let (database, db, _, mine) = organisation(backend, 1, 1).await;
    let org = mine[0].org_id;
    let mut rng = Rng::new(0x5EA2C4);
    let ids = search_marketplace(&db, org, &mut rng, 120).await.unwrap();
    // A second handle, as another replica: it serves from memory; `db` writes behind its back.
    let replica = Db::connect(database.url()).await.unwrap();
    replica.serve_search_from_memory(
        database.url(),
        MemoryOptions {
            max_listings: 10_000,
            poll: Duration::from_millis(50),
            // Small, so that tok/s floors are often served from the tok/s order.
            floor_probe: 3,
        },
    );
    wait_serving(&replica).await;
    let mut found = 0;
    for round in 0..4 {
        if round > 0 {
            for _ in 0..15 {
                let id = rng.pick(&ids);
                search_change(&db, &mut rng, id).await.unwrap();
            }
            // Another replica's changes arrive by notification or poll: within a second.
            // Every shape in full, by price (every listing it holds, every column compared),
            // until all agree: a catch-up that began amid the changes is followed by another.
            let deadline = Instant::now() + Duration::from_secs(2);
            loop {
                let mut agree = true;
                for cell in [None].into_iter().chain(SEARCH_CELLS.map(Some)) {
                    let everything = ListingQuery {
                        cell,
                        limit: 1_000,
                        ..empty_query()
                    };
                    agree &= compare(&replica, everything).await.is_ok();
                }
                if agree {
                    break;
                }
                assert!(
                    Instant::now() < deadline,
                    "round {round}: not caught up in 2 s"
                );
                tokio::time::sleep(Duration::from_millis(20)).await;
            }
        }
        for _ in 0..150 {
            let query = random_query(&mut rng);
            match compare(&replica, query).await {
                Ok(seen) => found += seen.len(),
                Err(difference) => panic!("round {round}: {difference}"),
            }
        }
    }
    // The queries found things: the comparison was not of empty pages.
    assert!(found > 500, "only {found} hits in all");

    // A replica whose cap the marketplace exceeds holds nothing and asks the database.
    let capped = Db::connect(database.url()).await.unwrap();
    capped.serve_search_from_memory(
        database.url(),
        MemoryOptions {
            max_listings: 10,
            poll: Duration::from_millis(50),
            floor_probe: MemoryOptions::FLOOR_PROBE,
        },
    );
    let deadline = Instant::now() + Duration::from_secs(10);
    while capped.search_memory_state() != MemoryState::OverCap {
        assert!(
            Instant::now() < deadline,
            "{:?}",
            capped.search_memory_state()
        );
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
    for _ in 0..20 {
        compare(&capped, random_query(&mut rng)).await.unwrap();
    }
}

#[tokio::test]
async fn memory_answers_as_the_database_on_sqlite() {
    memory_answers_as_the_database(Backend::Sqlite).await;
}

#[tokio::test]
async fn memory_answers_as_the_database_on_postgres() {
    memory_answers_as_the_database(Backend::Postgres).await;
}
