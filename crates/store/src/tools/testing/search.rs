//! A small random marketplace with many ties, and the changes other replicas make to it:
//! what search from memory is compared with the database on.

use crate::{Db, StoreError};

/// A marketplace for testing search: `n` listings of `org` whose columns take few values
/// each (so orders tie and filters overlap), some delisted, some with reliability, windows,
/// catalog GPUs and decode cells (tied and distinct), written straight to the tables as
/// another replica's writes would arrive. Returns their ids.
pub async fn search_marketplace(
    db: &Db,
    org: uuid::Uuid,
    rng: &mut crate::tools::synthetic::Rng,
    n: usize,
) -> Result<Vec<uuid::Uuid>, StoreError> {
    use sea_orm::EntityTrait;
    let mut ids = Vec::with_capacity(n);
    for _ in 0..n {
        let id = uuid::Uuid::now_v7();
        let (listing, cells) = search_listing(rng, id, org);
        crate::entities::listings::Entity::insert(listing)
            .exec_without_returning(db.conn())
            .await?;
        if !cells.is_empty() {
            crate::entities::listing_cells::Entity::insert_many(cells)
                .exec_without_returning(db.conn())
                .await?;
        }
        ids.push(id);
    }
    Ok(ids)
}

/// One random change to listing `id`, as another replica would make it: a new price, a new
/// reliability, delisting (its cells removed), new cells, or a new window.
pub async fn search_change(
    db: &Db,
    rng: &mut crate::tools::synthetic::Rng,
    id: uuid::Uuid,
) -> Result<(), StoreError> {
    use crate::entities::{listing_cells, listings};
    use sea_orm::{ColumnTrait, EntityTrait, QueryFilter, sea_query::Expr};
    let update = listings::Entity::update_many().filter(listings::Column::Id.eq(id));
    match rng.below(5) {
        0 => {
            let price = rng.pick(&[10, 20, 30, 45]);
            update
                .col_expr(listings::Column::PriceAmount, Expr::value(price))
                .exec(db.conn())
                .await?;
            listing_cells::Entity::update_many()
                .col_expr(listing_cells::Column::PriceAmount, Expr::value(price))
                .filter(listing_cells::Column::ListingId.eq(id))
                .exec(db.conn())
                .await?;
        }
        1 => {
            update
                .col_expr(
                    listings::Column::Reliability,
                    Expr::value(rng.pick(&[None, Some(0.5), Some(0.9), Some(1.0)])),
                )
                .exec(db.conn())
                .await?;
        }
        2 => {
            update
                .col_expr(
                    listings::Column::Status,
                    Expr::value(crate::listing_status::DELISTED),
                )
                .exec(db.conn())
                .await?;
            listing_cells::Entity::delete_many()
                .filter(listing_cells::Column::ListingId.eq(id))
                .exec(db.conn())
                .await?;
        }
        3 => {
            listing_cells::Entity::delete_many()
                .filter(listing_cells::Column::ListingId.eq(id))
                .exec(db.conn())
                .await?;
            let listing = db
                .listing_by_id(id)
                .await?
                .ok_or(StoreError::Corrupt("no such listing".into()))?;
            let cells = search_cells(rng, &listing.gpu_model, listing.price_amount, id);
            if !cells.is_empty() {
                listing_cells::Entity::insert_many(cells)
                    .exec_without_returning(db.conn())
                    .await?;
            }
        }
        _ => {
            let (from, until) = search_window(rng);
            update
                .col_expr(listings::Column::AvailableFrom, Expr::value(from))
                .col_expr(listings::Column::AvailableUntil, Expr::value(until))
                .exec(db.conn())
                .await?;
        }
    }
    Ok(())
}

/// The GPU models, regions and cells the search marketplace draws from.
pub const SEARCH_MODELS: [&str; 3] = ["A", "B", "C"];
pub const SEARCH_REGIONS: [&str; 3] = ["eu", "us", "ap"];
/// The engines verified listings were measured on (`None`: badged before engines were named).
pub const SEARCH_ENGINES: [Option<&str>; 3] = [Some("vllm"), Some("llamacpp"), None];
pub const SEARCH_CELLS: [(i64, i64); 3] = [(1024, 1), (1024, 8), (8192, 1)];

fn search_window(
    rng: &mut crate::tools::synthetic::Rng,
) -> (
    Option<chrono::DateTime<chrono::Utc>>,
    Option<chrono::DateTime<chrono::Utc>>,
) {
    let day = search_day;
    (
        rng.pick(&[None, None, Some(day(0)), Some(day(10))]),
        rng.pick(&[None, None, Some(day(20)), Some(day(40))]),
    )
}

fn search_cells(
    rng: &mut crate::tools::synthetic::Rng,
    model: &str,
    price: i64,
    id: uuid::Uuid,
) -> Vec<crate::entities::listing_cells::ActiveModel> {
    use sea_orm::ActiveValue::Set;
    let mut cells = Vec::new();
    for &(context, concurrency) in &SEARCH_CELLS {
        if rng.below(3) == 0 {
            continue;
        }
        let tok_s = rng.pick(&[100.0, 200.0, 250.5, 400.0]);
        cells.push(crate::entities::listing_cells::ActiveModel {
            listing_id: Set(id),
            context_tokens: Set(context),
            concurrency: Set(concurrency),
            gpu_model: Set(model.to_owned()),
            price_amount: Set(price),
            total_tok_s: Set(tok_s),
            price_per_mtok: Set(rng.pick(&[1.5, 2.0, 3.25])),
            ttft_ms_p99: Set(None),
            ttft_samples: Set(None),
            itl_ms_p99: Set(None),
            energy_j_per_token: Set(rng.pick(&[None, Some(0.5), Some(1.25), Some(2.0)])),
        });
    }
    cells
}

fn search_listing(
    rng: &mut crate::tools::synthetic::Rng,
    id: uuid::Uuid,
    org: uuid::Uuid,
) -> (
    crate::entities::listings::ActiveModel,
    Vec<crate::entities::listing_cells::ActiveModel>,
) {
    use sea_orm::ActiveValue::Set;
    let now = chrono::DateTime::from_timestamp(1_790_000_000, 0).unwrap_or_default();
    let model = rng.pick(&SEARCH_MODELS);
    let price = rng.pick(&[10, 20, 30]);
    let active = rng.below(8) > 0;
    let verified = rng.below(3) > 0;
    let cells = if active && verified {
        search_cells(rng, model, price, id)
    } else {
        Vec::new()
    };
    let (from, until) = search_window(rng);
    let listing = crate::entities::listings::ActiveModel {
        id: Set(id),
        org_id: Set(org),
        title: Set(format!("{model} {id}")),
        gpu_model: Set(model.to_owned()),
        gpu_count: Set(rng.pick(&[1, 2, 4])),
        vram_gb: Set(rng.pick(&[24, 48, 80])),
        cpu_model: Set("cpu".to_owned()),
        ram_gb: Set(64),
        region: Set(rng.pick(&SEARCH_REGIONS).to_owned()),
        price_amount: Set(price),
        currency: Set(rng.pick(&["USD", "USD", "EUR"]).to_owned()),
        engine_base_url: Set("http://engine.test.invalid".to_owned()),
        engine_model: Set("m".to_owned()),
        engine_name: Set(None),
        measured_engine: Set(verified
            .then(|| rng.pick(&SEARCH_ENGINES).map(str::to_owned))
            .flatten()),
        hardware_confirmed: Set(rng.below(3) == 0),
        access_containers: Set(None),
        min_bid_per_gpu_hour: Set(None),
        status: Set(if active {
            domain::ListingStatus::Active
        } else {
            domain::ListingStatus::Delisted
        }
        .into()),
        latest_report_id: Set(verified.then(uuid::Uuid::now_v7)),
        verified_at: Set(verified.then_some(now)),
        headline_total_tok_s: Set(verified.then(|| rng.pick(&[150.0, 300.0, 300.0, 450.25]))),
        headline_per_request_tok_s: Set(None),
        headline_price_per_mtok: Set(verified.then(|| rng.pick(&[1.0, 2.5, 2.5]))),
        created_at: Set(now),
        updated_at: Set(now),
        available_from: Set(from),
        available_until: Set(until),
        access_ssh_host: Set(None),
        access_ssh_port: Set(None),
        access_ssh_user: Set(None),
        access_https_url: Set(None),
        engine_api_key: Set(None),
        delisted_at: Set(None),
        verification_state: Set(verified.then_some(domain::BadgeState::Verified.into())),
        verification_expires_at: Set(None),
        next_spot_check_at: Set(None),
        last_verification_cost: Set(None),
        catalog_gpu: Set(rng.pick(&[None, None, Some("h100".to_owned())])),
        catalog_model: Set(None),
        guarantee_min_bp: Set(None),
        spot_check_forwarded_at: Set(None),
        liveness_state: Set(None),
        liveness_since: Set(None),
        probe_due_at: Set(None),
        reliability: Set(rng.pick(&[None, Some(0.5), Some(0.9), Some(1.0)])),
    };
    (listing, cells)
}

/// A day of the search marketplace's calendar (its availability windows, bookings and
/// maintenance windows), from a fixed instant about a year ahead.
pub fn search_day(d: i64) -> chrono::DateTime<chrono::Utc> {
    chrono::DateTime::from_timestamp(1_800_000_000 + d * 86_400, 0).unwrap_or_default()
}

/// Something new holding random GPUs of listing `id` (`renter` books, and announces the
/// windows), written straight to the tables as another replica's writes would arrive: a
/// booking of 1 or 2 GPUs over days 0–40 in any status (awaiting payment with a hold that
/// ends on day 2 or 4, or none), or a maintenance window.
pub async fn search_hold(
    db: &Db,
    rng: &mut crate::tools::synthetic::Rng,
    id: uuid::Uuid,
    renter: uuid::Uuid,
) -> Result<(), StoreError> {
    use crate::entities::{bookings, maintenance_windows};
    use domain::BookingStatus as s;
    use sea_orm::{ActiveValue::Set, EntityTrait};
    let starts = rng.below(40) as i64;
    let (starts_at, ends_at) = (
        search_day(starts),
        search_day(starts + 1 + rng.below(10) as i64),
    );
    if rng.below(4) == 0 {
        maintenance_windows::Entity::insert(maintenance_windows::ActiveModel {
            id: Set(uuid::Uuid::now_v7()),
            listing_id: Set(id),
            starts_at: Set(starts_at),
            ends_at: Set(ends_at),
            reason: Set("test".to_owned()),
            created_by: Set(renter),
            created_at: Set(search_day(-30)),
            cancel_overlapping: Set(false),
            cancelled_bookings: Set(0),
            interrupted_bookings: Set(0),
        })
        .exec_without_returning(db.conn())
        .await?;
        return Ok(());
    }
    let status = rng.pick(&[
        s::Confirmed,
        s::Active,
        s::PendingPayment,
        s::PendingPayment,
        s::Cancelled,
        s::Completed,
        s::Expired,
    ]);
    let booking = uuid::Uuid::now_v7();
    bookings::Entity::insert(bookings::ActiveModel {
        id: Set(booking),
        listing_id: Set(id),
        renter_id: Set(renter),
        gpu_count: Set(rng.pick(&[1, 1, 2])),
        starts_at: Set(starts_at),
        ends_at: Set(ends_at),
        status: Set(status.into()),
        price_amount: Set(100),
        currency: Set("USD".to_owned()),
        idempotency_key: Set(format!("search-{booking}")),
        request_hash: Set("search".to_owned()),
        hold_expires_at: Set(rng.pick(&[None, Some(search_day(2)), Some(search_day(4))])),
        cancelled_at: Set(None),
        refund_amount: Set(None),
        created_at: Set(search_day(-30)),
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
    })
    .exec_without_returning(db.conn())
    .await?;
    Ok(())
}

/// One random change to what holds listing `id`'s GPUs, as another replica would make it:
/// something new held ([`search_hold`]), every booking of it cancelled or confirmed, or
/// every maintenance window of it deleted.
pub async fn search_hold_change(
    db: &Db,
    rng: &mut crate::tools::synthetic::Rng,
    id: uuid::Uuid,
    renter: uuid::Uuid,
) -> Result<(), StoreError> {
    use crate::booking_status as s;
    use crate::entities::{bookings, maintenance_windows};
    use sea_orm::{ColumnTrait, EntityTrait, QueryFilter, sea_query::Expr};
    match rng.below(4) {
        0 | 1 => {
            let status = if rng.below(2) == 0 {
                s::CANCELLED
            } else {
                s::CONFIRMED
            };
            bookings::Entity::update_many()
                .col_expr(bookings::Column::Status, Expr::value(status))
                .filter(bookings::Column::ListingId.eq(id))
                .exec(db.conn())
                .await?;
        }
        2 => {
            maintenance_windows::Entity::delete_many()
                .filter(maintenance_windows::Column::ListingId.eq(id))
                .exec(db.conn())
                .await?;
        }
        _ => search_hold(db, rng, id, renter).await?,
    }
    Ok(())
}
