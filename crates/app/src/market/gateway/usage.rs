//! A booking's usage: totals, and per bucket the requests, tokens, delivery and the credit
//! the bucket earned under the booking's guarantee.

use chrono::{DateTime, Duration, Utc};
use domain::guarantee::Verified;
use uuid::Uuid;

use crate::money::guarantees::{by_bucket, judge, reached_directly, verified_cells};
use crate::{App, AppError, Caller};

/// Most requests one usage answer reads.
const USAGE_ROWS: u64 = 100_000;

/// A booking's usage: totals and five-minute buckets.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Usage {
    pub requests: u64,
    pub prompt_tokens: u64,
    pub output_tokens: u64,
    pub buckets: Vec<UsageBucket>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct UsageBucket {
    pub start: DateTime<Utc>,
    pub requests: u64,
    pub prompt_tokens: u64,
    pub output_tokens: u64,
    pub ttft_ms_p50: Option<f64>,
    pub per_stream_tok_s_p50: Option<f64>,
    pub concurrency_max: u64,
    /// The verified per-stream tok/s the bucket's requests are held to (median of their
    /// cells), when the report measured their load as valid.
    pub verified_tok_s: Option<f64>,
    /// Median delivered share of the verified figures (at least 5 judged requests).
    pub delivered_fraction: Option<f64>,
    /// Requests judged.
    pub judged_requests: u64,
    /// Comparable requests the engine refused (4xx): counted, never judged.
    pub rejected_requests: u64,
    /// The longest a write to the client stayed blocked.
    pub client_stall_ms_max: Option<f64>,
    /// The client read too slowly for the bucket to be judged against the machine.
    pub slow_reader: bool,
    /// Why the bucket was not judged at all: `direct_access` when a booking of the machine
    /// that reached it directly (SSH or an HTTPS URL) held it meanwhile.
    pub unjudged_reason: Option<&'static str>,
    /// The credit the bucket earned under the booking's guarantee (once judged).
    pub credit_minor: i64,
}

impl App {
    /// A booking's usage, for its renter and the provider's members: totals, and per bucket
    /// (`gateway_bucket_secs`; a request counts in the bucket it finished in) the requests, tokens, median TTFT and per-stream speed, the
    /// most streams open at once, and the delivery against the verified report (the
    /// guarantee's, else the listing's latest) with the credit the bucket earned.
    pub async fn booking_usage(&self, caller: Caller, booking: Uuid) -> Result<Usage, AppError> {
        let record = self.booking_record(caller, booking).await?;
        let bucket = self.bucket();
        let rows = self
            .db()
            .gateway_requests_of(booking, record.starts_at - Duration::days(1), USAGE_ROWS)
            .await?;
        let guarantee = self.db().guarantee_of(booking).await?;
        let report = match &guarantee {
            Some(g) => Some(g.report_id),
            None => {
                self.listing_record(record.listing_id)
                    .await?
                    .latest_report_id
            }
        };
        let cells = match report {
            Some(report) => verified_cells(&self.db().cells_of_report(report).await?),
            None => Verified::default(),
        };
        let credits = self.db().credits_of(booking).await?;
        let (from, until) = match (rows.first(), rows.last()) {
            (Some(first), Some(last)) => (first.finished_at, last.finished_at + bucket),
            _ => (record.starts_at, record.starts_at),
        };
        let direct = self
            .direct_access_between(record.listing_id, from - bucket, until)
            .await?;
        let mut usage = Usage::default();
        for (start, requests) in by_bucket(&rows, bucket) {
            let as_u64 = |n: i64| n.max(0) as u64;
            let prompt_tokens = requests.iter().map(|r| as_u64(r.prompt_tokens)).sum();
            let output_tokens = requests.iter().map(|r| as_u64(r.output_tokens)).sum();
            let ttfts: Vec<f64> = requests.iter().filter_map(|r| r.ttft_ms).collect();
            let speeds: Vec<f64> = requests.iter().filter_map(|r| r.per_stream_tok_s).collect();
            let unjudged_reason =
                reached_directly(&direct, start, bucket).then_some("direct_access");
            let judgement = match unjudged_reason {
                Some(_) => domain::guarantee::Judgement::default(),
                None => judge(&requests, &cells),
            };
            usage.requests += requests.len() as u64;
            usage.prompt_tokens = usage.prompt_tokens.saturating_add(prompt_tokens);
            usage.output_tokens = usage.output_tokens.saturating_add(output_tokens);
            usage.buckets.push(UsageBucket {
                start,
                requests: requests.len() as u64,
                prompt_tokens,
                output_tokens,
                ttft_ms_p50: bench::stats::median(&ttfts),
                per_stream_tok_s_p50: bench::stats::median(&speeds),
                concurrency_max: requests
                    .iter()
                    .map(|r| r.concurrency.max(0) as u64)
                    .max()
                    .unwrap_or(0),
                verified_tok_s: judgement.verified_tok_s,
                delivered_fraction: judgement.delivered_fraction,
                judged_requests: judgement.judged,
                rejected_requests: judgement.rejected,
                client_stall_ms_max: judgement.client_stall_ms_max,
                slow_reader: judgement.slow_reader,
                unjudged_reason,
                credit_minor: credits
                    .iter()
                    .find(|c| c.bucket_start == start)
                    .map_or(0, |c| c.amount),
            });
        }
        Ok(usage)
    }
}
