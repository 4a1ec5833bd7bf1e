//! The market's price history: the sweeper rolls up each hour and day once it has closed
//! (`domain::market::roll_up` over the listings and bookings of that bucket; a bucket is final
//! once written, never recomputed per request), and anyone reads the rows back per GPU.

use chrono::{DateTime, Utc};
use domain::market::{ALL_GPUS, Bucket, Held, Listed, held_span, roll_up};
use domain::{Currency, Money, ValidationError};
use store::HistoryRecord;

use crate::{App, AppError};

/// How far back the sweeper rolls up buckets it has not (a new server, or one stopped for a
/// while), newest first.
const BACKFILL: [(Bucket, i64); 2] = [(Bucket::Hour, 48), (Bucket::Day, 14)];

/// Most buckets one sweep rolls up: the rest wait for the next.
const BUCKETS_PER_SWEEP: usize = 4;

/// One bucket of a GPU's history.
#[derive(Debug, Clone, PartialEq)]
pub struct HistoryPoint {
    pub start: DateTime<Utc>,
    pub listings: i64,
    pub gpus_listed: i64,
    pub gpu_hours_booked: f64,
    pub price_p10: Money,
    pub price_median: Money,
    pub price_p90: Money,
    pub clearing_bid: Option<Money>,
    pub price_per_mtok_median: Option<f64>,
}

/// A GPU's history as asked.
#[derive(Debug, Clone, PartialEq)]
pub struct History {
    /// A catalog GPU's id, or `*` for every listing.
    pub gpu: String,
    pub bucket: Bucket,
    pub currency: Currency,
    pub from: DateTime<Utc>,
    pub until: DateTime<Utc>,
    pub items: Vec<HistoryPoint>,
}

/// A history as asked, before checking.
#[derive(Debug, Clone, Default)]
pub struct HistoryQuery {
    pub gpu: Option<String>,
    pub bucket: Option<String>,
    pub currency: Option<String>,
    pub from: Option<DateTime<Utc>>,
    pub until: Option<DateTime<Utc>>,
}

impl App {
    /// Rolls up closed buckets not rolled up yet (at most a few per sweep, newest first), as
    /// of `now`. Returns how many.
    pub async fn roll_up_market(&self, now: DateTime<Utc>) -> Result<usize, AppError> {
        let mut rolled = 0;
        for (bucket, back) in BACKFILL {
            let last_closed = bucket.start_of(now) - bucket.length();
            let since = last_closed - bucket.length() * (back as i32 - 1);
            let done = self.db().history_rolled_up(bucket.as_str(), since).await?;
            for i in 0..back {
                if rolled == BUCKETS_PER_SWEEP {
                    return Ok(rolled);
                }
                let start = last_closed - bucket.length() * i as i32;
                if done.contains(&start) {
                    continue;
                }
                if self.roll_up_bucket(bucket, start, now).await? {
                    rolled += 1;
                }
            }
        }
        Ok(rolled)
    }

    async fn roll_up_bucket(
        &self,
        bucket: Bucket,
        start: DateTime<Utc>,
        now: DateTime<Utc>,
    ) -> Result<bool, AppError> {
        let until = start + bucket.length();
        let inputs = self.db().history_inputs(start, until).await?;
        let mut listed = Vec::with_capacity(inputs.listings.len());
        for l in &inputs.listings {
            let Ok(price) = crate::stored_money(l.price_amount, &l.currency) else {
                continue;
            };
            listed.push(Listed {
                listing: l.id,
                org: l.org_id,
                gpu: crate::records::catalog_gpu_of(l).map(|gpu| gpu.id.clone()),
                gpus: l.gpu_count,
                price,
                price_per_mtok: l.headline_price_per_mtok,
            });
        }
        let held: Vec<Held> = inputs
            .bookings
            .iter()
            .filter_map(|b| {
                let (from, until) = held_span(
                    *b.status,
                    (b.starts_at, b.ends_at),
                    b.cancelled_at,
                    b.interrupted_at,
                )?;
                Some(Held {
                    listing: b.listing_id,
                    renter: b.renter_id,
                    from,
                    until,
                    gpus: b.gpu_count,
                    bid: b.bid_per_gpu_hour.filter(|_| b.tier == "interruptible"),
                })
            })
            .collect();
        let own = |org, renter| inputs.members.contains(&(org, renter));
        let rows = roll_up((start, until), &listed, &held, own)
            .into_iter()
            .map(|r| HistoryRecord {
                bucket: bucket.as_str().to_owned(),
                gpu: r.gpu,
                currency: r.currency.code().to_owned(),
                starts_at: start,
                listings: r.listings,
                gpus_listed: r.gpus_listed,
                gpu_hours_booked: r.gpu_hours_booked,
                price_p10: r.price_p10,
                price_median: r.price_median,
                price_p90: r.price_p90,
                clearing_bid: r.clearing_bid,
                price_per_mtok_median: r.price_per_mtok_median,
            })
            .collect();
        Ok(self
            .db()
            .write_history(bucket.as_str(), start, rows, now)
            .await?)
    }

    /// The market's history of a GPU (a catalog GPU's id, name or alias; every listing when
    /// absent) in a currency (`USD` by default) by hour or day (the default), over
    /// `[from, until)` (the last 30 days, or 48 hours, by default). Public.
    pub async fn market_history(&self, query: HistoryQuery) -> Result<History, AppError> {
        let bucket = Bucket::parse(query.bucket.as_deref().unwrap_or("day"))?;
        let currency = Currency::parse("currency", query.currency.as_deref().unwrap_or("USD"))?;
        let gpu = match query.gpu.as_deref().map(str::trim) {
            None | Some("") | Some(ALL_GPUS) => ALL_GPUS.to_owned(),
            Some(name) => catalog::Catalog::get()
                .map_err(|e| AppError::Internal(e.to_string()))?
                .gpu_named(name)
                .map(|g| g.id.clone())
                .ok_or_else(|| {
                    ValidationError::new("gpu", format!("no GPU of the catalog is named {name:?}"))
                })?,
        };
        let until = query.until.unwrap_or_else(Utc::now);
        let default_span = match bucket {
            Bucket::Hour => bucket.length() * 48,
            Bucket::Day => bucket.length() * 30,
        };
        let from = query.from.unwrap_or(until - default_span);
        if until <= from {
            return Err(ValidationError::new("until", "must be after from").into());
        }
        if until - from > bucket.length() * bucket.most_per_answer() as i32 {
            return Err(ValidationError::new(
                "from",
                format!(
                    "at most {} buckets of a {} per answer",
                    bucket.most_per_answer(),
                    bucket.as_str()
                ),
            )
            .into());
        }
        let rows = self
            .db()
            .market_history(bucket.as_str(), &gpu, currency.code(), (from, until))
            .await?;
        let money = |minor| Money::new(minor, currency);
        Ok(History {
            gpu,
            bucket,
            currency,
            from,
            until,
            items: rows
                .into_iter()
                .map(|r| HistoryPoint {
                    start: r.starts_at,
                    listings: r.listings,
                    gpus_listed: r.gpus_listed,
                    gpu_hours_booked: r.gpu_hours_booked,
                    price_p10: money(r.price_p10),
                    price_median: money(r.price_median),
                    price_p90: money(r.price_p90),
                    clearing_bid: r.clearing_bid.map(money),
                    price_per_mtok_median: r.price_per_mtok_median,
                })
                .collect(),
        })
    }
}
