//! Performance-backed bookings. A listing may guarantee a share of its verified speed
//! (`guarantee: {min_fraction}`); a booking made while the listing is verified keeps that
//! guarantee and the report it refers to. The provider's own timestamps give each request's
//! per-stream speed; per usage bucket the delivery is held to the report at the same work
//! and load — the time per token interpolated between the measured contexts just below and
//! just above the request's prompt and output, each at the smallest measured concurrency at
//! or above the streams open to the machine — and only where the report measured those cells
//! as valid (never past its largest context). A bucket whose median delivered share falls
//! below the guarantee earns the booking that bucket's share of the price, unless the
//! renter's client read slowly (the provider's writes to it stayed blocked for more than
//! [`domain::guarantee::SLOW_READER_MS`]): a slow reader slows the stream, not the machine. A
//! credit brings the listing's next spot check forward to now. When the booking is over, the
//! credits are paid back once as a partial refund (`booking-<id>-credit` with Stripe; a
//! `credit` ledger row when payments are `none`).
//!
//! What either party can inject never decides a credit (the book's guarantees page lists it
//! rule by rule): a request for another model, a value out of its documented range, or the
//! engine refusing a request (4xx) is never judged — refusals of over a fifth of a bucket's
//! eligible requests bring the spot check forward instead; the engine failing (5xx, a broken
//! stream, one cut before `[DONE]`, a chunk the provider cannot read) delivered nothing; the
//! tokens are the fewest of the engine's usage, the chunks × the verified tokens per chunk,
//! the bytes of text sent and `max_tokens`.
//!
//! Only what the provider controls decides: a booking that reaches the machine directly (SSH or
//! an HTTPS URL, not waived) carries no guarantee, and a bucket that any such booking of the
//! machine overlapped is not judged; the load is the provider's own count, never the engine's.
//!
//! A request counts in the bucket in which it finished (it is recorded then, so a bucket's
//! requests are all known once it has ended); a bucket is judged a bucket's length after it
//! ends. The load is the number of streams the provider had open to the machine, across all
//! its bookings and replicas, at any moment of the request.

use chrono::{DateTime, Duration, Utc};
use domain::LedgerKind;
use domain::guarantee::{
    Judgement, Outcome, ServedRequest, Verified, VerifiedCell, bucket_of, bucket_share,
};
use payments::RefundRequest;
use store::{BookingRecord, CellRecord, CreditRecord, GatewayRequestRecord, GuaranteeRecord};
use uuid::Uuid;

use crate::engine_origin::engine_key;
use crate::{App, AppError};

/// Most guarantees one upkeep pass looks at.
const PER_PASS: u64 = 100;
/// Most requests one judgement reads.
const ROWS: u64 = 100_000;
/// The valid decode cells and prefill rates a report measured.
pub fn verified_cells(cells: &[CellRecord]) -> Verified {
    let valid = |c: &&CellRecord| c.status == domain::CellStatus::Valid;
    Verified {
        cells: cells
            .iter()
            .filter(valid)
            .filter(|c| c.phase == domain::CellPhase::Decode)
            .filter_map(|c| {
                Some(VerifiedCell {
                    context: u64::try_from(c.context_tokens).ok()?,
                    concurrency: u64::try_from(c.concurrency).ok()?,
                    per_request_tok_s: c.per_request_tok_s.filter(|v| *v > 0.0)?,
                    ttft_ms_p99: c.ttft_ms_p99.filter(|v| *v >= 0.0),
                    tokens_per_chunk: c.tokens_per_chunk.filter(|v| *v >= 1.0),
                })
            })
            .collect(),
        prefill: cells
            .iter()
            .filter(valid)
            .filter(|c| c.phase == domain::CellPhase::Prefill)
            .filter_map(|c| {
                Some((
                    u64::try_from(c.context_tokens).ok()?,
                    c.prompt_tok_s.filter(|v| *v > 0.0)?,
                ))
            })
            .collect(),
    }
}

/// What judging reads of a recorded request.
fn served(request: &GatewayRequestRecord) -> ServedRequest {
    ServedRequest {
        outcome: match request.outcome.as_str() {
            "completed" => Outcome::Completed,
            "engine_error" => Outcome::EngineError,
            "rejected" => Outcome::Rejected,
            _ => Outcome::Other,
        },
        comparable: request.comparable,
        prompt_tokens: request.prompt_tokens,
        output_tokens: request.output_tokens,
        engine_output_tokens: request.engine_output_tokens,
        chunks: request.chunks,
        text_bytes: request.text_bytes,
        max_tokens: request.max_tokens,
        ttft_ms: request.ttft_ms,
        last_token_ms: request.last_token_ms,
        concurrency: request.concurrency,
        client_stall_ms: request.client_stall_ms,
    }
}

/// Judges one bucket's recorded requests ([`domain::guarantee::judge`]).
pub fn judge(requests: &[&GatewayRequestRecord], verified: &Verified) -> Judgement {
    let served: Vec<ServedRequest> = requests.iter().map(|r| served(r)).collect();
    domain::guarantee::judge(&served, verified)
}

/// Requests (in the order they finished) grouped by the bucket they finished in.
pub fn by_bucket(
    rows: &[GatewayRequestRecord],
    bucket: Duration,
) -> Vec<(DateTime<Utc>, Vec<&GatewayRequestRecord>)> {
    let mut out: Vec<(DateTime<Utc>, Vec<&GatewayRequestRecord>)> = Vec::new();
    for row in rows {
        let start = bucket_of(row.finished_at, bucket);
        match out.last_mut() {
            Some((last, rows)) if *last == start => rows.push(row),
            _ => out.push((start, vec![row])),
        }
    }
    out
}

/// When bookings that reached the machine directly held it: each `[from, until)`.
pub(crate) type DirectAccess = Vec<(DateTime<Utc>, DateTime<Utc>)>;

/// Whether a booking that reached the machine directly held it during the bucket starting at
/// `start`: then the bucket is not judged (that renter could load the engine around the
/// provider, which counts only what it sees).
pub(crate) fn reached_directly(
    direct: &DirectAccess,
    start: DateTime<Utc>,
    bucket: Duration,
) -> bool {
    direct
        .iter()
        .any(|(from, until)| *from < start + bucket && start < *until)
}

/// A booking's guarantee as `app` hands it out.
#[derive(Debug, Clone, PartialEq)]
pub struct BookingGuarantee {
    pub min_bp: i32,
    pub report_id: Uuid,
    pub credit: domain::Money,
    pub credited_buckets: u64,
    pub settled_at: Option<DateTime<Utc>>,
    pub settled: Option<domain::Money>,
}

/// When a booking stopped giving access: its end, or its cancellation.
fn ended_at(booking: &BookingRecord) -> DateTime<Utc> {
    booking
        .cancelled_at
        .map_or(booking.ends_at, |at| at.min(booking.ends_at))
}

impl App {
    pub(crate) fn bucket(&self) -> Duration {
        Duration::seconds(self.config().gateway.bucket_secs as i64)
    }

    /// When bookings that could reach `listing`'s engine directly (given SSH or an HTTPS URL
    /// when they were made, not waived) held it over `[from, until)` — bookings of every
    /// listing naming the same engine (its origin), not this listing's alone.
    pub(crate) async fn direct_access_between(
        &self,
        listing: Uuid,
        from: DateTime<Utc>,
        until: DateTime<Utc>,
    ) -> Result<DirectAccess, AppError> {
        let record = self.listing_record(listing).await?;
        let engine = engine_key(&record.engine_base_url);
        let host = crate::engine_origin::engine_host(&record.engine_base_url);
        let mut listings: Vec<Uuid> = self
            .db()
            .listings_with_engine_host(&host)
            .await?
            .into_iter()
            .filter(|(_, base)| engine_key(base) == engine)
            .map(|(id, _)| id)
            .collect();
        if !listings.contains(&listing) {
            listings.push(listing);
        }
        Ok(self
            .db()
            .direct_access_between(&listings, from, until)
            .await?)
    }

    /// A booking's guarantee with its credits so far, when it has one.
    pub(crate) async fn booking_guarantee(
        &self,
        booking: &BookingRecord,
    ) -> Result<Option<BookingGuarantee>, AppError> {
        let Some(g) = self.db().guarantee_of(booking.id).await? else {
            return Ok(None);
        };
        let price = crate::stored_money(booking.price_amount, &booking.currency)?;
        let credited = self.db().credits_of(booking.id).await?.len() as u64;
        Ok(Some(BookingGuarantee {
            min_bp: g.min_bp,
            report_id: g.report_id,
            credit: price.with_minor(g.credit_amount),
            credited_buckets: credited,
            settled_at: g.settled_at,
            settled: g.settled_amount.map(|a| price.with_minor(a)),
        }))
    }

    /// Judges the buckets of performance-backed bookings that are due, credits those that
    /// under-delivered (bringing the listing's spot check forward), and settles the credits
    /// of bookings that are over. Idempotent: any number of replicas may run it.
    pub async fn guarantee_upkeep(&self) -> Result<(), AppError> {
        let now = Utc::now();
        for (guarantee, booking) in self.db().open_guarantees(now, PER_PASS).await? {
            if let Err(e) = self.keep_guarantee(&guarantee, &booking, now).await {
                tracing::warn!(booking = %booking.id, error = %e, "a booking's guarantee was not judged");
            }
        }
        Ok(())
    }

    async fn keep_guarantee(
        &self,
        guarantee: &GuaranteeRecord,
        booking: &BookingRecord,
        now: DateTime<Utc>,
    ) -> Result<(), AppError> {
        let bucket = self.bucket();
        let end = ended_at(booking);
        // Buckets that ended a bucket's length ago, through the one the booking ended in.
        let last = bucket_of(end + bucket, bucket);
        let until = bucket_of(now - bucket, bucket).min(last);
        let mut judged = guarantee.evaluated_until;
        if judged.is_none_or(|from| from < until) {
            judged = self
                .judge_buckets(guarantee, booking, judged, until, now)
                .await?;
        }
        let over = booking.status.is_final();
        if over && judged.is_some_and(|judged| judged >= last) {
            if let Err(e) = self.settle_credits(booking).await {
                // Tried again in five minutes, not on every pass (and not before others).
                self.db()
                    .check_guarantee_at(booking.id, now + Duration::minutes(5))
                    .await?;
                return Err(e);
            }
            return Ok(());
        }
        // Nothing to judge before the next bucket ends.
        self.db()
            .check_guarantee_at(booking.id, bucket_of(now, bucket) + bucket)
            .await?;
        Ok(())
    }

    /// Judges the buckets in `[from, until)` and records them; returns how far the
    /// guarantee is judged now (by this call, or by another replica meanwhile).
    async fn judge_buckets(
        &self,
        guarantee: &GuaranteeRecord,
        booking: &BookingRecord,
        from: Option<DateTime<Utc>>,
        mut until: DateTime<Utc>,
        now: DateTime<Utc>,
    ) -> Result<Option<DateTime<Utc>>, AppError> {
        let bucket = self.bucket();
        let since = from.unwrap_or(bucket_of(booking.starts_at, bucket));
        let fetched = self
            .db()
            .gateway_requests_of(booking.id, since, ROWS)
            .await?;
        // More requests than one read takes: judge the buckets read whole, the rest next time.
        if fetched.len() as u64 == ROWS
            && let Some(last) = fetched.last()
            && bucket_of(last.finished_at, bucket) > since
        {
            until = until.min(bucket_of(last.finished_at, bucket));
        }
        let rows: Vec<GatewayRequestRecord> = fetched
            .into_iter()
            .filter(|r| r.finished_at < until)
            .collect();
        let cells = verified_cells(&self.db().cells_of_report(guarantee.report_id).await?);
        let direct = self
            .direct_access_between(booking.listing_id, since, until)
            .await?;
        let mut credits = Vec::new();
        let mut refusals = false;
        for (start, requests) in by_bucket(&rows, bucket) {
            if reached_directly(&direct, start, bucket) {
                continue;
            }
            let judgement = judge(&requests, &cells);
            refusals |= judgement.rejections_are_evidence();
            if judgement.under(guarantee.min_bp) {
                credits.push(CreditRecord {
                    booking_id: booking.id,
                    bucket_start: start,
                    amount: bucket_share(
                        booking.price_amount,
                        (booking.starts_at, booking.ends_at),
                        start,
                        bucket,
                    ),
                    delivered_bp: judgement
                        .delivered_fraction
                        .map_or(0, |f| (f * 10_000.0).round() as i32),
                    created_at: now,
                });
            }
        }
        let recorded = self
            .db()
            .record_judgement(booking.id, from, until, &credits)
            .await?;
        if !recorded {
            return Ok(self
                .db()
                .guarantee_of(booking.id)
                .await?
                .and_then(|g| g.evaluated_until));
        }
        if !credits.is_empty() || refusals {
            if refusals {
                tracing::info!(booking = %booking.id, "the engine refused over a fifth of a bucket's requests: spot check brought forward");
            } else {
                tracing::info!(booking = %booking.id, buckets = credits.len(), "a booking under-delivered: credited, spot check brought forward");
            }
            let every = Duration::seconds(self.config().verification.spot_check_every_secs as i64);
            self.db()
                .spot_check_now(booking.listing_id, now, every)
                .await?;
        }
        Ok(Some(until))
    }

    /// Pays a finished booking's credits back, once: within what was paid and not refunded
    /// already; with Stripe as a refund of the PaymentIntent (one idempotency key per
    /// booking, so a retry repeats the same request), else as a `credit` ledger row.
    async fn settle_credits(&self, booking: &BookingRecord) -> Result<(), AppError> {
        let Some(guarantee) = self.db().guarantee_of(booking.id).await? else {
            return Ok(());
        };
        if guarantee.settled_at.is_some() {
            return Ok(());
        }
        let interrupted = self.db().taken_by_windows(booking.id).await?;
        let unrefunded =
            booking.price_amount - booking.refund_amount.unwrap_or(0).max(0) - interrupted;
        let amount = guarantee.credit_amount.min(unrefunded).max(0);
        let listing = self.listing_record(booking.listing_id).await?;
        let price = crate::stored_money(booking.price_amount, &booking.currency)?;
        let (refund_id, rows) = match (&booking.payment_intent_id, self.payments()) {
            _ if amount == 0 => (None, Vec::new()),
            (Some(intent), Some(provider)) if booking.payment_provider.is_some() => {
                let request = RefundRequest {
                    payment_intent: intent.clone(),
                    amount,
                    booking_id: booking.id.to_string(),
                    idempotency_key: format!("booking-{}-credit", booking.id),
                };
                let refund = provider.refund(&request).await.map_err(|e| {
                    AppError::PaymentProvider(format!(
                        "payment provider: {e} (booking {})",
                        booking.id
                    ))
                })?;
                let rows = crate::money::payments::refund_rows(
                    booking,
                    listing.org_id,
                    &refund.id,
                    refund.amount,
                )?;
                (Some(refund.id), rows)
            }
            _ => (
                None,
                vec![store::NewLedgerEntry {
                    booking_id: booking.id,
                    org_id: listing.org_id,
                    renter_id: booking.renter_id,
                    kind: LedgerKind::Credit,
                    amount: price.with_minor(-amount),
                    stripe_object_id: None,
                }],
            ),
        };
        if self
            .db()
            .settle_guarantee(booking.id, amount, refund_id, &rows, Utc::now())
            .await?
        {
            tracing::info!(booking = %booking.id, amount, "a booking's performance credits were settled");
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use chrono::Utc;

    #[test]
    fn a_recorded_request_is_read_as_judging_needs_it() {
        let mut record = GatewayRequestRecord {
            id: Uuid::now_v7(),
            booking_id: Uuid::nil(),
            endpoint: "/v1/completions".into(),
            started_at: Utc::now(),
            finished_at: Utc::now(),
            prompt_tokens: 12,
            output_tokens: 7,
            engine_output_tokens: Some(8),
            ttft_ms: Some(30.0),
            per_stream_tok_s: Some(50.0),
            concurrency: 2,
            outcome: "completed".into(),
            client_stall_ms: Some(3.0),
            comparable: true,
            chunks: Some(7),
            last_token_ms: Some(200.0),
            engine_load: Some(3),
            text_bytes: Some(30),
            max_tokens: Some(64),
        };
        let read = served(&record);
        assert_eq!(
            (
                read.outcome,
                read.prompt_tokens,
                read.output_tokens,
                read.engine_output_tokens
            ),
            (Outcome::Completed, 12, 7, Some(8))
        );
        assert_eq!((read.chunks, read.concurrency), (Some(7), 2));
        assert_eq!(
            (read.ttft_ms, read.last_token_ms, read.client_stall_ms),
            (Some(30.0), Some(200.0), Some(3.0))
        );
        for (stored, outcome) in [
            ("engine_error", Outcome::EngineError),
            ("rejected", Outcome::Rejected),
            ("client_disconnected", Outcome::Other),
            ("booking_ended", Outcome::Other),
            ("engine_unavailable", Outcome::Other),
        ] {
            record.outcome = stored.into();
            assert_eq!(served(&record).outcome, outcome);
        }
    }
}
