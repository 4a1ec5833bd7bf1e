//! Listings: a provider's machine, its hardware, price, availability, access and engine
//! endpoint, the summary of its latest verification, and search over all of them.

use chrono::{DateTime, Utc};
use domain::listing::price_per_mtok;
use domain::{ListingSpec, OrgId};
use sea_orm::sea_query::{Expr, ExprTrait, IntoCondition};
use sea_orm::{
    ActiveValue::Set, ColumnTrait, Condition, ConnectionTrait, EntityTrait, JoinType, QueryFilter,
    QueryOrder, QuerySelect, RelationDef, TransactionTrait,
};
use uuid::Uuid;

use crate::entities::{listing_cells, listings, report_cells};
use crate::{Db, StoreError};

pub type ListingRecord = listings::Model;

pub mod listing_status {
    pub const ACTIVE: &str = "active";
    pub const DELISTED: &str = "delisted";
}

/// What search orders by. Ties are broken by id in the same direction.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SortKey {
    /// Price per GPU-hour, cheapest first.
    Price,
    /// Verified total tok/s, fastest first.
    TokS,
    /// Price per million output tokens, cheapest first.
    PricePerMtok,
}

/// Where the previous page ended: its last row's sort value and id.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct After {
    pub value: f64,
    pub id: Uuid,
}

/// A search. Every filter is optional; `cell` picks the decode cell that measured figures
/// (filter, `tok_s` and `price_per_mtok` sorts) refer to, the listing's best cell otherwise.
#[derive(Debug, Clone)]
pub struct ListingQuery {
    pub gpu_model: Option<String>,
    pub min_vram_gb: Option<i32>,
    pub max_price: Option<i64>,
    pub currency: Option<String>,
    pub region: Option<String>,
    pub verified_only: bool,
    pub min_gpu_count: Option<i32>,
    /// `(context_tokens, concurrency)`.
    pub cell: Option<(i64, i64)>,
    pub min_total_tok_s: Option<f64>,
    /// The listing's availability window must cover `[from, until)`.
    pub window: Option<(DateTime<Utc>, DateTime<Utc>)>,
    pub sort: SortKey,
    pub after: Option<After>,
    pub limit: u64,
}

/// A search hit: the listing and the figures it was found and ordered by.
#[derive(Debug, Clone)]
pub struct ListingHit {
    pub listing: ListingRecord,
    /// Total tok/s at the query's cell (or the best cell).
    pub total_tok_s: Option<f64>,
    pub price_per_mtok: Option<f64>,
}

impl ListingHit {
    /// The value the hit was ordered by, for the next page's cursor.
    pub fn sort_value(&self, sort: SortKey) -> Option<f64> {
        match sort {
            SortKey::Price => Some(self.listing.price_amount as f64),
            SortKey::TokS => self.total_tok_s,
            SortKey::PricePerMtok => self.price_per_mtok,
        }
    }
}

fn spec_model(spec: &ListingSpec) -> listings::ActiveModel {
    listings::ActiveModel {
        title: Set(spec.title.clone()),
        gpu_model: Set(spec.gpu_model.clone()),
        gpu_count: Set(spec.gpu_count),
        vram_gb: Set(spec.vram_gb),
        cpu_model: Set(spec.cpu_model.clone()),
        ram_gb: Set(spec.ram_gb),
        region: Set(spec.region.clone()),
        price_amount: Set(spec.price_per_gpu_hour),
        currency: Set(spec.currency.clone()),
        engine_base_url: Set(spec.engine_base_url.clone()),
        engine_model: Set(spec.engine_model.clone()),
        engine_api_key: Set(spec.engine_api_key.clone()),
        available_from: Set(spec.available_from),
        available_until: Set(spec.available_until),
        access_ssh_host: Set(spec.ssh.as_ref().map(|s| s.host.clone())),
        access_ssh_port: Set(spec.ssh.as_ref().map(|s| s.port)),
        access_ssh_user: Set(spec.ssh.as_ref().map(|s| s.user.clone())),
        access_https_url: Set(spec.https_url.clone()),
        ..Default::default()
    }
}

impl Db {
    pub async fn insert_listing(
        &self,
        id: Uuid,
        org: OrgId,
        spec: &ListingSpec,
        now: DateTime<Utc>,
    ) -> Result<ListingRecord, StoreError> {
        let mut model = spec_model(spec);
        model.id = Set(id);
        model.org_id = Set(org.as_uuid());
        model.status = Set(listing_status::ACTIVE.to_owned());
        model.latest_report_id = Set(None);
        model.verified_at = Set(None);
        model.headline_total_tok_s = Set(None);
        model.headline_per_request_tok_s = Set(None);
        model.headline_price_per_mtok = Set(None);
        model.delisted_at = Set(None);
        model.created_at = Set(now);
        model.updated_at = Set(now);
        listings::Entity::insert(model)
            .exec_without_returning(self.conn())
            .await?;
        self.listing_by_id(id)
            .await?
            .ok_or_else(|| StoreError::Corrupt(format!("listing {id} vanished after insert")))
    }

    pub async fn listing_by_id(&self, id: Uuid) -> Result<Option<ListingRecord>, StoreError> {
        Ok(listings::Entity::find_by_id(id).one(self.conn()).await?)
    }

    pub async fn listings_of_org(&self, org: OrgId) -> Result<Vec<ListingRecord>, StoreError> {
        Ok(listings::Entity::find()
            .filter(listings::Column::OrgId.eq(org.as_uuid()))
            .order_by_asc(listings::Column::CreatedAt)
            .all(self.conn())
            .await?)
    }

    /// Replaces an active listing's specification. With `unverify` (the hardware or engine
    /// changed, so the latest report no longer describes the machine) its verification
    /// summary and search figures are dropped; otherwise the price-derived figures follow
    /// the new price. `None` when there is no such active listing.
    pub async fn update_listing(
        &self,
        id: Uuid,
        spec: &ListingSpec,
        unverify: bool,
        now: DateTime<Utc>,
    ) -> Result<Option<ListingRecord>, StoreError> {
        let txn = self.conn().begin().await?;
        let mut update = listings::Entity::update_many()
            .set(spec_model(spec))
            .col_expr(listings::Column::UpdatedAt, Expr::value(now))
            .filter(listings::Column::Id.eq(id))
            .filter(listings::Column::Status.eq(listing_status::ACTIVE));
        if unverify {
            update = update
                .col_expr(
                    listings::Column::LatestReportId,
                    Expr::value(Option::<Uuid>::None),
                )
                .col_expr(
                    listings::Column::VerifiedAt,
                    Expr::value(Option::<DateTime<Utc>>::None),
                )
                .col_expr(
                    listings::Column::HeadlineTotalTokS,
                    Expr::value(Option::<f64>::None),
                )
                .col_expr(
                    listings::Column::HeadlinePerRequestTokS,
                    Expr::value(Option::<f64>::None),
                );
        }
        if update.exec(&txn).await?.rows_affected == 0 {
            return Ok(None);
        }
        if unverify {
            listing_cells::Entity::delete_many()
                .filter(listing_cells::Column::ListingId.eq(id))
                .exec(&txn)
                .await?;
        }
        refresh_prices(&txn, id).await?;
        txn.commit().await?;
        self.listing_by_id(id).await
    }

    /// Takes a listing off the market: it can no longer be found or booked; its bookings
    /// and reports stay. `false` when it was not active.
    pub async fn delist_listing(&self, id: Uuid, now: DateTime<Utc>) -> Result<bool, StoreError> {
        let result = listings::Entity::update_many()
            .col_expr(
                listings::Column::Status,
                Expr::value(listing_status::DELISTED),
            )
            .col_expr(listings::Column::DelistedAt, Expr::value(now))
            .col_expr(listings::Column::UpdatedAt, Expr::value(now))
            .filter(listings::Column::Id.eq(id))
            .filter(listings::Column::Status.eq(listing_status::ACTIVE))
            .exec(self.conn())
            .await?;
        Ok(result.rows_affected == 1)
    }

    /// One page of active listings matching `query`, in its order.
    pub async fn search_listings(
        &self,
        query: &ListingQuery,
    ) -> Result<Vec<ListingHit>, StoreError> {
        let mut select = listings::Entity::find()
            .filter(listings::Column::Status.eq(listing_status::ACTIVE))
            .filter(filters(query));
        let limit = query.limit;
        let Some((context, concurrency)) = query.cell else {
            // Figures of the listing's best cell, kept on the listing itself.
            let (value, id_order) = match query.sort {
                SortKey::Price => (Expr::col(listings::Column::PriceAmount), Direction::Asc),
                SortKey::TokS => (
                    Expr::col(listings::Column::HeadlineTotalTokS),
                    Direction::Desc,
                ),
                SortKey::PricePerMtok => (
                    Expr::col(listings::Column::HeadlinePricePerMtok),
                    Direction::Asc,
                ),
            };
            if let Some(min) = query.min_total_tok_s {
                select = select.filter(listings::Column::HeadlineTotalTokS.gte(min));
            }
            select = match query.sort {
                SortKey::Price => select.order_by_asc(listings::Column::PriceAmount),
                SortKey::TokS => select
                    .filter(listings::Column::HeadlineTotalTokS.is_not_null())
                    .order_by_desc(listings::Column::HeadlineTotalTokS),
                SortKey::PricePerMtok => select
                    .filter(listings::Column::HeadlinePricePerMtok.is_not_null())
                    .order_by_asc(listings::Column::HeadlinePricePerMtok),
            };
            if let Some(after) = query.after {
                select = select.filter(keyset(value, id_order, after));
            }
            select = match id_order {
                Direction::Asc => select.order_by_asc(listings::Column::Id),
                Direction::Desc => select.order_by_desc(listings::Column::Id),
            };
            let rows = select.limit(limit).all(self.conn()).await?;
            return Ok(rows
                .into_iter()
                .map(|listing| ListingHit {
                    total_tok_s: listing.headline_total_tok_s,
                    price_per_mtok: listing.headline_price_per_mtok,
                    listing,
                })
                .collect());
        };
        // Figures of one cell: walk that cell's rows of the search projection.
        select = select
            .join(JoinType::InnerJoin, cells_of_listing())
            .filter(listing_cells::Column::ContextTokens.eq(context))
            .filter(listing_cells::Column::Concurrency.eq(concurrency));
        if let Some(min) = query.min_total_tok_s {
            select = select.filter(listing_cells::Column::TotalTokS.gte(min));
        }
        let (value, id_order) = match query.sort {
            SortKey::Price => (
                Expr::col((listings::Entity, listings::Column::PriceAmount)),
                Direction::Asc,
            ),
            SortKey::TokS => (
                Expr::col((listing_cells::Entity, listing_cells::Column::TotalTokS)),
                Direction::Desc,
            ),
            SortKey::PricePerMtok => (
                Expr::col((listing_cells::Entity, listing_cells::Column::PricePerMtok)),
                Direction::Asc,
            ),
        };
        if let Some(after) = query.after {
            select = select.filter(keyset(value.clone(), id_order, after));
        }
        let id = Expr::col((listings::Entity, listings::Column::Id));
        select = match id_order {
            Direction::Asc => select
                .order_by(value, sea_orm::Order::Asc)
                .order_by(id, sea_orm::Order::Asc),
            Direction::Desc => select
                .order_by(value, sea_orm::Order::Desc)
                .order_by(id, sea_orm::Order::Desc),
        };
        let rows = select
            .select_also(listing_cells::Entity)
            .limit(limit)
            .all(self.conn())
            .await?;
        Ok(rows
            .into_iter()
            .map(|(listing, cell)| ListingHit {
                total_tok_s: cell.as_ref().map(|c| c.total_tok_s),
                price_per_mtok: cell.as_ref().map(|c| c.price_per_mtok),
                listing,
            })
            .collect())
    }
}

#[derive(Debug, Clone, Copy)]
enum Direction {
    Asc,
    Desc,
}

/// Rows strictly after `after` in the order `(value, id)` both ascending or both descending.
fn keyset(value: Expr, order: Direction, after: After) -> Condition {
    let id = Expr::col((listings::Entity, listings::Column::Id));
    match order {
        Direction::Asc => Condition::any().add(value.clone().gt(after.value)).add(
            Condition::all()
                .add(value.eq(after.value))
                .add(id.gt(after.id)),
        ),
        Direction::Desc => Condition::any().add(value.clone().lt(after.value)).add(
            Condition::all()
                .add(value.eq(after.value))
                .add(id.lt(after.id)),
        ),
    }
}

/// The filters on the listing's own columns.
fn filters(query: &ListingQuery) -> Condition {
    let mut c = Condition::all();
    if let Some(model) = &query.gpu_model {
        c = c.add(listings::Column::GpuModel.eq(model.as_str()));
    }
    if let Some(vram) = query.min_vram_gb {
        c = c.add(listings::Column::VramGb.gte(vram));
    }
    if let Some(price) = query.max_price {
        c = c.add(listings::Column::PriceAmount.lte(price));
    }
    if let Some(currency) = &query.currency {
        c = c.add(listings::Column::Currency.eq(currency.as_str()));
    }
    if let Some(region) = &query.region {
        c = c.add(listings::Column::Region.eq(region.as_str()));
    }
    if query.verified_only {
        c = c.add(listings::Column::LatestReportId.is_not_null());
    }
    if let Some(gpus) = query.min_gpu_count {
        c = c.add(listings::Column::GpuCount.gte(gpus));
    }
    if let Some((from, until)) = query.window {
        c = c
            .add(
                Condition::any()
                    .add(listings::Column::AvailableFrom.is_null())
                    .add(listings::Column::AvailableFrom.lte(from)),
            )
            .add(
                Condition::any()
                    .add(listings::Column::AvailableUntil.is_null())
                    .add(listings::Column::AvailableUntil.gte(until)),
            );
    }
    c.into_condition()
}

/// The join from a listing to its rows of the search projection.
fn cells_of_listing() -> RelationDef {
    let to_listing: RelationDef = listing_cells::Entity::belongs_to(listings::Entity)
        .from(listing_cells::Column::ListingId)
        .to(listings::Column::Id)
        .into();
    to_listing.rev()
}

/// Recomputes the price-per-million-tokens figures of a listing from its price and its
/// measured tok/s (after a price change or a new report).
async fn refresh_prices(conn: &impl ConnectionTrait, id: Uuid) -> Result<(), StoreError> {
    let cells: Vec<(i64, i64, f64)> = listing_cells::Entity::find()
        .filter(listing_cells::Column::ListingId.eq(id))
        .all(conn)
        .await?
        .into_iter()
        .map(|c| (c.context_tokens, c.concurrency, c.total_tok_s))
        .collect();
    write_cells(conn, id, cells).await
}

/// Replaces the listing's rows of the search projection with `cells`
/// (`(context_tokens, concurrency, total_tok_s)`), pricing each and the headline.
async fn write_cells(
    conn: &impl ConnectionTrait,
    id: Uuid,
    cells: Vec<(i64, i64, f64)>,
) -> Result<(), StoreError> {
    let Some(listing) = listings::Entity::find_by_id(id).one(conn).await? else {
        return Ok(());
    };
    let ppm = |tok_s: f64| price_per_mtok(listing.price_amount, listing.gpu_count, tok_s);
    listings::Entity::update_many()
        .col_expr(
            listings::Column::HeadlinePricePerMtok,
            Expr::value(listing.headline_total_tok_s.and_then(ppm)),
        )
        .filter(listings::Column::Id.eq(id))
        .exec(conn)
        .await?;
    listing_cells::Entity::delete_many()
        .filter(listing_cells::Column::ListingId.eq(id))
        .exec(conn)
        .await?;
    let rows: Vec<listing_cells::ActiveModel> = cells
        .into_iter()
        .filter_map(|(context_tokens, concurrency, tok_s)| {
            Some(listing_cells::ActiveModel {
                listing_id: Set(id),
                context_tokens: Set(context_tokens),
                concurrency: Set(concurrency),
                total_tok_s: Set(tok_s),
                price_per_mtok: Set(ppm(tok_s)?),
            })
        })
        .collect();
    if !rows.is_empty() {
        listing_cells::Entity::insert_many(rows)
            .exec_without_returning(conn)
            .await?;
    }
    Ok(())
}

/// Makes `report` the listing's latest verification: its headline on the listing and its
/// valid decode cells in the search projection. Runs inside the report's transaction.
pub(crate) async fn set_verification(
    conn: &impl ConnectionTrait,
    listing: Uuid,
    report: Uuid,
    at: DateTime<Utc>,
    total_tok_s: Option<f64>,
    per_request_tok_s: Option<f64>,
) -> Result<(), StoreError> {
    listings::Entity::update_many()
        .col_expr(listings::Column::LatestReportId, Expr::value(report))
        .col_expr(listings::Column::VerifiedAt, Expr::value(at))
        .col_expr(
            listings::Column::HeadlineTotalTokS,
            Expr::value(total_tok_s),
        )
        .col_expr(
            listings::Column::HeadlinePerRequestTokS,
            Expr::value(per_request_tok_s),
        )
        .filter(listings::Column::Id.eq(listing))
        .exec(conn)
        .await?;
    let cells = report_cells::Entity::find()
        .filter(report_cells::Column::ReportId.eq(report))
        .filter(report_cells::Column::Phase.eq("decode"))
        .filter(report_cells::Column::Status.eq("valid"))
        .all(conn)
        .await?
        .into_iter()
        .filter_map(|c| Some((c.context_tokens, c.concurrency, c.total_tok_s?)))
        .collect();
    write_cells(conn, listing, cells).await
}
