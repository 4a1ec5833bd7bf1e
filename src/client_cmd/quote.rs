//! `quote LISTING --from T --hours H [--gpus N] [--interruptible --bid X]`: what a booking
//! would cost and whether it would hold right now — what it would displace, why it would be
//! refused, and the bid that would hold. Nothing is booked.

use chrono::{DateTime, Utc};

use super::output::{fields, money};
use super::{Auth, Ctx, Failure, Global, uuid};

#[derive(Debug, clap::Args)]
pub struct QuoteArgs {
    #[command(flatten)]
    global: Global,
    /// The listing's id.
    listing: String,
    /// When the booking would start (RFC 3339).
    #[arg(long)]
    from: DateTime<Utc>,
    /// How many hours it would last.
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..=2160))]
    hours: u32,
    /// GPUs of the machine.
    #[arg(long, default_value_t = 1)]
    gpus: u32,
    /// Quote an interruptible booking at `--bid`.
    #[arg(long, requires = "bid")]
    interruptible: bool,
    /// The bid per GPU-hour, in minor units of the listing's currency.
    #[arg(long, requires = "interruptible", value_name = "MINOR_UNITS")]
    bid: Option<i64>,
}

pub async fn quote(args: QuoteArgs) -> Result<(), Failure> {
    let listing = uuid("listing", &args.listing)?;
    let ctx = Ctx::new(&args.global, Auth::Optional).await?;
    let mut call = ctx
        .client
        .quote()
        .listing_id(listing)
        .gpu_count(i64::from(args.gpus))
        .starts_at(args.from)
        .ends_at(args.from + chrono::Duration::hours(i64::from(args.hours)));
    if args.interruptible {
        call = call.tier("interruptible");
    }
    if let Some(bid) = args.bid {
        call = call.bid_per_gpu_hour(bid);
    }
    if let Some(q) = ctx.outcome(call.send().await)? {
        let currency = &q.total.currency;
        let mut pairs = vec![
            ("tier", q.tier.clone()),
            (
                "price",
                format!("{} per GPU-hour", money(q.amount_per_gpu_hour, currency)),
            ),
            ("total", money(q.total.amount, currency)),
            ("holds now", if q.holds { "yes" } else { "no" }.to_owned()),
            (
                "displaces",
                format!(
                    "{} booking(s), {} GPU(s)",
                    q.displaces.bookings, q.displaces.gpus
                ),
            ),
        ];
        if let Some(refusal) = &q.refusal {
            pairs.push(("refused", format!("{}: {}", refusal.code, refusal.detail)));
        }
        if let Some(bid) = q.min_bid_per_gpu_hour_now {
            pairs.push((
                "bid that holds now",
                format!("{} per GPU-hour", money(bid, currency)),
            ));
        }
        ctx.say(&fields(ctx.style, &pairs))?;
    }
    ctx.finish()
}
