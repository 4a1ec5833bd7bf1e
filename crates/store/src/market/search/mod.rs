//! Search over active listings: by hardware, price, region, free capacity and measured
//! performance, in keyset pages. Each shape of search walks one index in its order.

pub(crate) mod free;
pub(crate) mod memory;
pub(crate) mod query;

use std::sync::Arc;

use sea_orm::sea_query::{Expr, ExprTrait, Func, IntoCondition};
use sea_orm::{
    ColumnTrait, Condition, EntityTrait, JoinType, QueryFilter, QueryOrder, QuerySelect,
};

use crate::entities::{listing_cells, listings};
use crate::market::search::query::{After, ListingHit, ListingQuery, SharedListing, SortKey};
use crate::status::listing_status;
use crate::trust::projection::cells_of_listing;
use crate::{Db, StoreError};

impl Db {
    /// One page of active listings matching `query`, in its order.
    ///
    /// Each shape of search walks one index in the order asked for and stops at the page's
    /// end; filters on other columns are written so the planner cannot pick their indexes
    /// instead (a range on another column, then a sort of every match, is what makes search
    /// slow at 100,000 listings). Measured figures of one cell come from `listing_cells`,
    /// which holds rows for active listings only and carries the columns its orders need.
    pub async fn search_listings(
        &self,
        query: &ListingQuery,
    ) -> Result<Vec<ListingHit>, StoreError> {
        if let Some(hits) = self.search_in_memory(query).await? {
            return Ok(hits);
        }
        self.search_listings_in_database(query).await
    }

    /// The same page from the database, whether or not this process holds search in
    /// memory: what the memory's answers are tested against.
    pub async fn search_listings_in_database(
        &self,
        query: &ListingQuery,
    ) -> Result<Vec<ListingHit>, StoreError> {
        match query.cell {
            None => self.search_headline(query).await,
            Some(cell) => self.search_cell(query, cell).await,
        }
    }

    async fn search_headline(&self, query: &ListingQuery) -> Result<Vec<ListingHit>, StoreError> {
        use listings::Column as L;
        let sort = query.sort;
        let mut select = listings::Entity::find()
            .filter(L::Status.eq(listing_status::ACTIVE))
            .filter(listing_filters(query, sort == SortKey::Price));
        if let Some(model) = &query.gpu_model {
            select = select.filter(L::GpuModel.eq(model.as_str()));
        }
        if let Some(price) = query.max_price {
            select = select.filter(indexable(L::PriceAmount, sort == SortKey::Price).lte(price));
        }
        if let Some(min) = query.min_total_tok_s {
            select = select.filter(indexable(L::HeadlineTotalTokS, sort == SortKey::TokS).gte(min));
        }
        let (key, direction) = match sort {
            SortKey::Price => (L::PriceAmount, Direction::Asc),
            SortKey::TokS => (L::HeadlineTotalTokS, Direction::Desc),
            SortKey::PricePerMtok => (L::HeadlinePricePerMtok, Direction::Asc),
            SortKey::Reliability => (L::Reliability, Direction::Desc),
            // Energy is a cell's figure: no headline has one (the app asks for a cell).
            SortKey::JPerToken => return Ok(Vec::new()),
        };
        if query.max_j_per_token.is_some() {
            return Ok(Vec::new());
        }
        if sort != SortKey::Price {
            select = select.filter(key.is_not_null());
        }
        if let Some(after) = query.after {
            select = select.filter(keyset(Expr::col(key), Expr::col(L::Id), direction, after));
        }
        let order = direction.order();
        let rows = select
            .order_by(key, order.clone())
            .order_by(L::Id, order)
            .limit(query.limit)
            .all(self.conn())
            .await?;
        Ok(rows
            .into_iter()
            .map(|listing| ListingHit {
                total_tok_s: listing.headline_total_tok_s,
                price_per_mtok: listing.headline_price_per_mtok,
                energy_j_per_token: None,
                listing: Arc::new(SharedListing::new(listing)),
            })
            .collect())
    }

    async fn search_cell(
        &self,
        query: &ListingQuery,
        (context, concurrency): (i64, i64),
    ) -> Result<Vec<ListingHit>, StoreError> {
        use listing_cells::Column as C;
        let sort = query.sort;
        // No status filter: cells exist for active listings only, and without it no index
        // of `listings` applies, so the walk follows the cell index in the order asked for.
        let mut select = listings::Entity::find()
            .join(JoinType::InnerJoin, cells_of_listing())
            .filter(C::ContextTokens.eq(context))
            .filter(C::Concurrency.eq(concurrency))
            .filter(listing_filters(query, false));
        if let Some(model) = &query.gpu_model {
            select = select.filter(C::GpuModel.eq(model.as_str()));
        }
        if let Some(price) = query.max_price {
            select = select.filter(indexable(C::PriceAmount, sort == SortKey::Price).lte(price));
        }
        let (key_expr, direction) = match sort {
            SortKey::Price => (
                Expr::col((listing_cells::Entity, C::PriceAmount)),
                Direction::Asc,
            ),
            SortKey::TokS => (
                Expr::col((listing_cells::Entity, C::TotalTokS)),
                Direction::Desc,
            ),
            SortKey::PricePerMtok => (
                Expr::col((listing_cells::Entity, C::PricePerMtok)),
                Direction::Asc,
            ),
            SortKey::Reliability => (
                Expr::col((listings::Entity, listings::Column::Reliability)),
                Direction::Desc,
            ),
            SortKey::JPerToken => (
                Expr::col((listing_cells::Entity, C::EnergyJPerToken)),
                Direction::Asc,
            ),
        };
        if sort == SortKey::Reliability {
            select = select.filter(listings::Column::Reliability.is_not_null());
        }
        if sort == SortKey::JPerToken {
            select = select.filter(C::EnergyJPerToken.is_not_null());
        }
        if let Some(max) = query.max_j_per_token {
            select =
                select.filter(indexable(C::EnergyJPerToken, sort == SortKey::JPerToken).lte(max));
        }
        let id_expr = Expr::col((listing_cells::Entity, C::ListingId));
        if let Some(min) = query.min_total_tok_s {
            let mut cells = listing_cells::Entity::find()
                .filter(C::ContextTokens.eq(context))
                .filter(C::Concurrency.eq(concurrency));
            if let Some(model) = &query.gpu_model {
                cells = cells.filter(C::GpuModel.eq(model.as_str()));
            }
            // Reliability is the listing's own column: the cells' index cannot walk it.
            let by_floor = sort == SortKey::TokS
                || sort == SortKey::Reliability
                || self
                    .floor_is_sparse(
                        query,
                        min,
                        (key_expr.clone(), id_expr.clone(), direction),
                        cells,
                        Expr::col((listing_cells::Entity, C::TotalTokS)),
                    )
                    .await?;
            select = select.filter(indexable(C::TotalTokS, by_floor).gte(min));
        }
        if let Some(after) = query.after {
            select = select.filter(keyset(key_expr.clone(), id_expr.clone(), direction, after));
        }
        let order = direction.order();
        let rows = select
            .order_by(key_expr, order.clone())
            .order_by(id_expr, order)
            .select_also(listing_cells::Entity)
            .limit(query.limit)
            .all(self.conn())
            .await?;
        Ok(rows
            .into_iter()
            .map(|(listing, cell)| ListingHit {
                total_tok_s: cell.as_ref().map(|c| c.total_tok_s),
                price_per_mtok: cell.as_ref().map(|c| c.price_per_mtok),
                energy_j_per_token: cell.as_ref().and_then(|c| c.energy_j_per_token),
                listing: Arc::new(SharedListing::new(listing)),
            })
            .collect())
    }
}

/// How far along the order asked for a tok/s floor is looked for before deciding how to
/// serve it (see [`Db::floor_is_sparse`]).
const FLOOR_PROBE: u64 = 500;

impl Db {
    /// Whether a tok/s floor is better served by its own index (then its matches sorted)
    /// than by walking the order asked for and skipping rows below it. Walking wins when the
    /// page fills early in the order; so the first [`FLOOR_PROBE`] rows of the order are
    /// checked (on the index alone), and when fewer than a page of them pass, the floor is
    /// sparse along the order — or correlated against it — and its own index is used.
    async fn floor_is_sparse(
        &self,
        query: &ListingQuery,
        min: f64,
        order: (Expr, Expr, Direction),
        select: sea_orm::Select<listing_cells::Entity>,
        tok_s: Expr,
    ) -> Result<bool, StoreError> {
        let (key, id, direction) = order;
        let mut probe = select.select_only().expr(tok_s);
        if let Some(after) = query.after {
            probe = probe.filter(keyset(key.clone(), id.clone(), direction, after));
        }
        let seen: Vec<f64> = probe
            .order_by(key, direction.order())
            .order_by(id, direction.order())
            .limit(FLOOR_PROBE)
            .into_tuple()
            .all(self.conn())
            .await?;
        let passing = seen.iter().filter(|&&t| t >= min).count() as u64;
        Ok((seen.len() as u64) == FLOOR_PROBE && passing < query.limit)
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Direction {
    Asc,
    Desc,
}

impl Direction {
    fn order(self) -> sea_orm::Order {
        match self {
            Self::Asc => sea_orm::Order::Asc,
            Self::Desc => sea_orm::Order::Desc,
        }
    }
}

/// A numeric column as a filter term: itself when the planner should use its index, else
/// `column + 0`, the same values that no index serves.
fn indexable<C: sea_orm::ColumnTrait>(column: C, use_index: bool) -> Expr {
    let expr = Expr::col((column.entity_name(), column));
    if use_index { expr } else { expr.add(0) }
}

/// Rows strictly after `after` in the order `(key, id)`, both in `direction`.
fn keyset(key: Expr, id: Expr, direction: Direction, after: After) -> Condition {
    let beyond = match direction {
        Direction::Asc => (key.clone().gt(after.value), id.gt(after.id)),
        Direction::Desc => (key.clone().lt(after.value), id.lt(after.id)),
    };
    Condition::any()
        .add(beyond.0)
        .add(Condition::all().add(key.eq(after.value)).add(beyond.1))
}

/// The filters on the listing's own columns other than model and price (which each path
/// places itself). `region_index`: the region may be looked up by its index (only the
/// price order has one that keeps the order).
fn listing_filters(query: &ListingQuery, region_index: bool) -> Condition {
    use listings::Column as L;
    let mut c = Condition::all();
    if let Some((id, names)) = &query.gpu {
        c = c.add(
            Condition::any()
                .add(Expr::col((listings::Entity, L::CatalogGpu)).eq(id.as_str()))
                .add(
                    Expr::col((listings::Entity, L::GpuModel))
                        .is_in(names.iter().map(String::as_str)),
                ),
        );
    }
    if let Some(vram) = query.min_vram_gb {
        c = c.add(L::VramGb.gte(vram));
    }
    if let Some(currency) = &query.currency {
        c = c.add(L::Currency.eq(currency.as_str()));
    }
    if let Some(region) = &query.region {
        c = c.add(if region_index {
            Expr::col((listings::Entity, L::Region)).eq(region.as_str())
        } else {
            // COALESCE of a NOT NULL column: the same test, no index.
            Func::coalesce([Expr::col((listings::Entity, L::Region)), Expr::val("")])
                .eq(region.as_str())
        });
    }
    if query.verified_only {
        c = c.add(L::LatestReportId.is_not_null());
    }
    if query.hardware_confirmed {
        c = c.add(L::HardwareConfirmed.eq(true));
    }
    if let Some(gpus) = query.min_gpu_count {
        c = c.add(L::GpuCount.gte(gpus));
    }
    if let Some(min) = query.min_reliability {
        c = c.add(Expr::col((listings::Entity, L::Reliability)).gte(min));
    }
    if let Some((from, until)) = query.window {
        c = c.add(crate::market::listings::covers_window(from, until));
    }
    if let Some(engine) = &query.engine {
        c = c.add(L::MeasuredEngine.eq(engine.as_str()));
    }
    c.into_condition()
}
