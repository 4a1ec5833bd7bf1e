//! `quote LISTING --from T --hours H [--gpus N] [--interruptible --bid X]`: what a booking
//! would cost and whether it would hold right now — what it would displace, why it would be
//! refused, and the bid that would hold. Nothing is booked.

use super::output::{fields, money};
use super::renter::Ask;
use super::{Auth, Ctx, Failure, Global, uuid};

#[derive(Debug, clap::Args)]
pub struct QuoteArgs {
    #[command(flatten)]
    global: Global,
    #[command(flatten)]
    ask: Ask,
}

pub async fn quote(args: QuoteArgs) -> Result<(), Failure> {
    let ask = &args.ask;
    let listing = uuid("listing", &ask.listing)?;
    let ctx = Ctx::new(&args.global, Auth::Optional).await?;
    let mut call = ctx
        .client
        .quote()
        .listing_id(listing)
        .gpu_count(i64::from(ask.gpus))
        .starts_at(ask.from)
        .ends_at(ask.ends_at());
    if let Some(tier) = ask.tier() {
        call = call.tier(tier);
    }
    if let Some(bid) = ask.bid {
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
