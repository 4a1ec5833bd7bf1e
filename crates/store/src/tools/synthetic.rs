//! A synthetic marketplace for the search benchmark: many listings with hardware, prices,
//! regions, availability windows, compliant reports with their decode cells, the search
//! projection, and bookings — written in large batches, deterministically from a seed.
//!
//! The reports carry figures but no signature (`key_id = "synthetic"`): they exist to give
//! search realistic data, never to be verified. Use a database of its own.

use chrono::{DateTime, Duration, Utc};
use domain::money::price_per_mtok;
use domain::{Currency, Money};
use domain::{DisplayName, Email, OrgId, OrgName, UserId};
use sea_orm::ActiveValue::Set;
use sea_orm::{EntityTrait, PaginatorTrait};
use uuid::Uuid;

use crate::entities::{bookings, listing_cells, listings, report_cells, reports};

use crate::{Db, StoreError};

/// GPU models with their VRAM and a typical tok/s scale.
pub const GPU_MODELS: &[(&str, i32, f64)] = &[
    ("NVIDIA GeForce RTX 3060", 12, 1.0),
    ("NVIDIA GeForce RTX 3090", 24, 2.2),
    ("NVIDIA GeForce RTX 4090", 24, 3.0),
    ("NVIDIA RTX A6000", 48, 2.4),
    ("NVIDIA L4", 24, 1.4),
    ("NVIDIA L40S", 48, 3.2),
    ("NVIDIA A10", 24, 1.6),
    ("NVIDIA A100 40GB", 40, 4.5),
    ("NVIDIA A100 80GB", 80, 5.0),
    ("NVIDIA H100 80GB", 80, 8.0),
    ("NVIDIA H200", 141, 9.5),
    ("AMD Instinct MI300X", 192, 8.5),
];

pub const REGIONS: &[&str] = &[
    "eu-central",
    "eu-west",
    "eu-north",
    "us-east",
    "us-west",
    "us-central",
    "ap-south",
    "ap-northeast",
    "sa-east",
    "af-south",
];

/// The decode cells every synthetic report has: `(context, concurrency)`.
pub const CELLS: &[(i64, i64)] = &[
    (1024, 1),
    (1024, 4),
    (1024, 16),
    (1024, 64),
    (8192, 1),
    (8192, 4),
    (8192, 16),
    (32768, 1),
    (32768, 4),
];

/// splitmix64: small, fast and good enough to spread synthetic data.
#[derive(Debug, Clone)]
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Self {
        Self(seed)
    }

    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// Uniform in `0..n`.
    pub fn below(&mut self, n: u64) -> u64 {
        self.next_u64() % n.max(1)
    }

    /// One of `values`, uniformly.
    pub fn pick<T: Clone>(&mut self, values: &[T]) -> T {
        values[self.below(values.len() as u64) as usize].clone()
    }

    /// Uniform in `[0, 1)`.
    pub fn unit(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 / (1u64 << 53) as f64
    }
}

/// What was loaded.
#[derive(Debug, Clone, Copy, Default)]
pub struct Loaded {
    pub listings: u64,
    pub verified: u64,
    pub cells: u64,
    pub bookings: u64,
}

impl Db {
    /// How many listings the database holds.
    pub async fn count_listings(&self) -> Result<u64, StoreError> {
        Ok(listings::Entity::find().count(self.conn()).await?)
    }

    /// Adds `count` synthetic listings (about 70 % verified, one booking per 5 listings)
    /// owned by a synthetic provider, in batches of `batch` listings per transaction.
    pub async fn load_synthetic(
        &self,
        count: u64,
        seed: u64,
        batch: u64,
    ) -> Result<Loaded, StoreError> {
        let _search = self.search_touch();
        let now = Utc::now();
        let mut rng = Rng::new(seed);
        let user = UserId::new();
        let tag = Uuid::new_v4().simple().to_string();
        let email = Email::parse(&format!("synthetic-{}@bench.invalid", &tag[..12]))
            .map_err(|e| StoreError::Corrupt(e.to_string()))?;
        let name = DisplayName::parse("Synthetic provider")
            .map_err(|e| StoreError::Corrupt(e.to_string()))?;
        self.insert_user(user, &email, &name, "!synthetic".into(), now)
            .await?;
        let org_name = OrgName::parse(&format!("synthetic {}", &tag[..12]))
            .map_err(|e| StoreError::Corrupt(e.to_string()))?;
        let org = self.create_org(OrgId::new(), &org_name, user, now).await?;
        let mut loaded = Loaded::default();
        let mut done = 0;
        while done < count {
            let n = batch.min(count - done);
            let txn = self.write().await?;
            let mut listing_rows = Vec::new();
            let mut report_rows = Vec::new();
            let mut cell_rows = Vec::new();
            let mut projection_rows = Vec::new();
            let mut booking_rows = Vec::new();
            for _ in 0..n {
                let s = synthetic_listing(&mut rng, org.id.as_uuid(), user.as_uuid(), now);
                loaded.listings += 1;
                if let Some((report, cells)) = s.report {
                    loaded.verified += 1;
                    loaded.cells += cells.len() as u64;
                    for c in &cells {
                        if let Some(ppm) = price_per_mtok(machine_hour(s.price, s.gpus), c.2) {
                            projection_rows.push(listing_cells::ActiveModel {
                                listing_id: Set(s.id),
                                context_tokens: Set(c.0),
                                concurrency: Set(c.1),
                                gpu_model: Set(s.gpu_model.to_owned()),
                                price_amount: Set(s.price),
                                total_tok_s: Set(c.2),
                                price_per_mtok: Set(ppm),
                                ttft_ms_p99: Set(None),
                                ttft_samples: Set(None),
                                itl_ms_p99: Set(None),
                                energy_j_per_token: Set(None),
                            });
                        }
                    }
                    cell_rows.extend(cells.into_iter().map(|(context, concurrency, tok_s)| {
                        report_cells::ActiveModel {
                            report_id: Set(s.report_id),
                            phase: Set(domain::CellPhase::Decode.as_str().to_owned()),
                            context_tokens: Set(context),
                            concurrency: Set(concurrency),
                            status: Set(domain::CellStatus::Valid.as_str().to_owned()),
                            total_tok_s: Set(Some(tok_s)),
                            per_request_tok_s: Set(Some(tok_s / concurrency as f64)),
                            ttft_ms: Set(None),
                            tbt_ms: Set(None),
                            prompt_tok_s: Set(None),
                            ttft_ms_p99: Set(None),
                            ttft_samples: Set(None),
                            itl_ms_p99: Set(None),
                            tokens_per_chunk: Set(None),
                            energy_j_per_token: Set(None),
                        }
                    }));
                    report_rows.push(report);
                }
                if let Some(b) = s.booking {
                    loaded.bookings += 1;
                    booking_rows.push(b);
                }
                listing_rows.push(s.listing);
            }
            // Parameter limits: SQLite takes at most 32766 binds per statement, PostgreSQL 65535.
            for chunk in listing_rows.chunks(1000) {
                listings::Entity::insert_many(chunk.to_vec())
                    .exec_without_returning(&txn)
                    .await?;
            }
            for chunk in report_rows.chunks(3000) {
                reports::Entity::insert_many(chunk.to_vec())
                    .exec_without_returning(&txn)
                    .await?;
            }
            for chunk in cell_rows.chunks(3000) {
                report_cells::Entity::insert_many(chunk.to_vec())
                    .exec_without_returning(&txn)
                    .await?;
            }
            for chunk in projection_rows.chunks(4000) {
                listing_cells::Entity::insert_many(chunk.to_vec())
                    .exec_without_returning(&txn)
                    .await?;
            }
            for chunk in booking_rows.chunks(2000) {
                bookings::Entity::insert_many(chunk.to_vec())
                    .exec_without_returning(&txn)
                    .await?;
            }
            txn.commit().await?;
            done += n;
        }
        Ok(loaded)
    }
}

type Cell = (i64, i64, f64);

struct SyntheticListing {
    id: Uuid,
    gpu_model: &'static str,
    report_id: Uuid,
    listing: listings::ActiveModel,
    price: i64,
    gpus: i32,
    /// The report and its cells `(context, concurrency, total_tok_s)`.
    report: Option<(reports::ActiveModel, Vec<Cell>)>,
    booking: Option<bookings::ActiveModel>,
}

/// A synthetic machine's price per hour: `gpus` GPUs at `price` US cents each.
fn machine_hour(price: i64, gpus: i32) -> Money {
    Money::new(price, Currency::Usd).times(i64::from(gpus))
}

fn synthetic_listing(rng: &mut Rng, org: Uuid, user: Uuid, now: DateTime<Utc>) -> SyntheticListing {
    let id = Uuid::now_v7();
    let (model, vram, scale) = GPU_MODELS[rng.below(GPU_MODELS.len() as u64) as usize];
    let gpus = [1, 1, 1, 2, 2, 4, 8][rng.below(7) as usize];
    let region = REGIONS[rng.below(REGIONS.len() as u64) as usize];
    // Price grows with the card, with a wide spread between providers.
    let price = ((20.0 + 60.0 * scale) * (0.6 + 0.8 * rng.unit())).round() as i64;
    let window = rng.below(10);
    let (from, until) = match window {
        0 => (Some(now + Duration::days(rng.below(30) as i64)), None),
        1 => (None, Some(now + Duration::days(30 + rng.below(300) as i64))),
        _ => (None, None),
    };
    let verified = rng.below(10) < 7;
    let base = 30.0 * scale * f64::from(gpus).sqrt() * (0.85 + 0.3 * rng.unit());
    let cells: Vec<(i64, i64, f64)> = CELLS
        .iter()
        .map(|&(context, concurrency)| {
            let concurrency_gain = (concurrency as f64).powf(0.8);
            let context_cost = 1.0 / (1.0 + context as f64 / 65_536.0);
            (context, concurrency, base * concurrency_gain * context_cost)
        })
        .collect();
    let best = cells.iter().map(|c| c.2).fold(0.0, f64::max);
    let single = cells.first().map(|c| c.2);
    let report_id = Uuid::now_v7();
    let listing = listings::ActiveModel {
        id: Set(id),
        org_id: Set(org),
        title: Set(format!("{gpus}x {model} in {region}")),
        gpu_model: Set(model.to_owned()),
        gpu_count: Set(gpus),
        vram_gb: Set(vram),
        cpu_model: Set("AMD EPYC 7543".to_owned()),
        ram_gb: Set(64 * gpus),
        region: Set(region.to_owned()),
        price_amount: Set(price),
        currency: Set("USD".to_owned()),
        engine_base_url: Set("http://engine.bench.invalid".to_owned()),
        engine_model: Set("bench".to_owned()),
        engine_name: Set(None),
        measured_engine: Set(verified.then(|| "vllm".to_owned())),
        hardware_confirmed: Set(false),
        access_containers: Set(None),
        min_bid_per_gpu_hour: Set(None),
        status: Set(domain::ListingStatus::Active.into()),
        latest_report_id: Set(verified.then_some(report_id)),
        verified_at: Set(verified.then_some(now)),
        headline_total_tok_s: Set(verified.then_some(best)),
        headline_per_request_tok_s: Set(if verified { single } else { None }),
        headline_price_per_mtok: Set(if verified {
            price_per_mtok(machine_hour(price, gpus), best)
        } else {
            None
        }),
        created_at: Set(now),
        updated_at: Set(now),
        available_from: Set(from),
        available_until: Set(until),
        access_ssh_host: Set(Some("gpu.bench.invalid".to_owned())),
        access_ssh_port: Set(Some(22)),
        access_ssh_user: Set(Some("renter".to_owned())),
        access_https_url: Set(None),
        engine_api_key: Set(None),
        delisted_at: Set(None),
        verification_state: Set(verified.then_some(domain::BadgeState::Verified.into())),
        verification_expires_at: Set(None),
        next_spot_check_at: Set(None),
        last_verification_cost: Set(None),
        catalog_gpu: Set(None),
        catalog_model: Set(None),
        guarantee_min_bp: Set(None),
        spot_check_forwarded_at: Set(None),
        liveness_state: Set(None),
        liveness_since: Set(None),
        probe_due_at: Set(None),
        reliability: Set(None),
    };
    let report = verified.then(|| {
        (
            reports::ActiveModel {
                id: Set(report_id),
                run_id: Set(Uuid::now_v7()),
                listing_id: Set(id),
                org_id: Set(org),
                compliant: Set(true),
                key_id: Set("synthetic".to_owned()),
                envelope: Set("{}".to_owned()),
                summary: Set("{}".to_owned()),
                created_at: Set(now),
                kind: Set("verification".to_owned()),
                visibility: Set("public".to_owned()),
                cell_figures_filled: Set(true),
                catalog_gpu: Set(None),
                catalog_model: Set(None),
                hardware_confirmed: Set(false),
            },
            cells,
        )
    });
    let booking = (rng.below(5) == 0).then(|| {
        let start = now + Duration::hours(1 + rng.below(24 * 14) as i64);
        let hours = 1 + rng.below(72) as i64;
        let ends = start + Duration::hours(hours);
        bookings::ActiveModel {
            id: Set(Uuid::now_v7()),
            listing_id: Set(id),
            renter_id: Set(user),
            gpu_count: Set(gpus),
            starts_at: Set(start),
            ends_at: Set(ends),
            status: Set(domain::BookingStatus::Confirmed.into()),
            price_amount: Set(price * i64::from(gpus) * hours),
            currency: Set("USD".to_owned()),
            idempotency_key: Set(format!("synthetic-{id}")),
            request_hash: Set("synthetic".to_owned()),
            hold_expires_at: Set(None),
            cancelled_at: Set(None),
            refund_amount: Set(None),
            created_at: Set(now),
            payment_provider: Set(None),
            payment_intent_id: Set(None),
            client_secret: Set(None),
            platform_fee_amount: Set(None),
            payment_error: Set(None),
            cancel_requested_at: Set(None),
            cancel_claimed_until: Set(None),
            plan_id: Set(None),
            direct_access: Set(true),
            no_guarantee_reason: Set(None),
            container: Set(None),
            stop_when_idle_secs: Set(None),
            tier: Set("on_demand".to_owned()),
            bid_per_gpu_hour: Set(None),
            amount_per_gpu_hour: Set(None),
            interrupted_at: Set(None),
            booked_ends_at: Set(None),
            interruption_refunded_at: Set(None),
            interruption_refund_id: Set(None),
        }
    });
    SyntheticListing {
        id,
        gpu_model: model,
        report_id,
        listing,
        price,
        gpus,
        report,
        booking,
    }
}
