//! `market history [--gpu G] [--bucket hour|day] [--from T] [--until T] [--currency C]`: the
//! market's price history, bucket by bucket, as `GET /v1/market/history` answers it.

use chrono::{DateTime, Utc};

use super::output::money;
use super::{Auth, Ctx, Failure, Global};

#[derive(Debug, clap::Args)]
pub struct MarketArgs {
    #[command(flatten)]
    global: Global,
    #[command(subcommand)]
    command: MarketCommand,
}

#[derive(Debug, clap::Subcommand)]
enum MarketCommand {
    /// The listed price per GPU-hour (p10, median, p90), GPU-hours booked and the clearing
    /// bid of each closed hour or day.
    History {
        /// A GPU of the catalog (id, name or alias); every listing when absent.
        #[arg(long)]
        gpu: Option<String>,
        /// `hour` or `day`.
        #[arg(long, default_value = "day")]
        bucket: String,
        #[arg(long)]
        from: Option<DateTime<Utc>>,
        #[arg(long)]
        until: Option<DateTime<Utc>>,
        /// The prices' currency.
        #[arg(long, default_value = "USD")]
        currency: String,
    },
}

pub async fn market(args: MarketArgs) -> Result<(), Failure> {
    let ctx = Ctx::new(&args.global, Auth::Optional).await?;
    let MarketCommand::History {
        gpu,
        bucket,
        from,
        until,
        currency,
    } = args.command;
    let mut call = ctx
        .client
        .market_history()
        .bucket(bucket)
        .currency(currency);
    if let Some(gpu) = gpu {
        call = call.gpu(gpu);
    }
    if let Some(from) = from {
        call = call.from(from);
    }
    if let Some(until) = until {
        call = call.until(until);
    }
    if let Some(h) = ctx.outcome(call.send().await)? {
        if h.items.is_empty() {
            ctx.say("no closed bucket in this range yet\n")?;
        } else {
            let mut out = format!(
                "{:<26} {:>8} {:>6} {:>10} {:>12} {:>12} {:>12} {:>12}\n",
                "start", "listings", "gpus", "gpu-hours", "p10", "median", "p90", "clearing bid"
            );
            for p in &h.items {
                let price = |minor: i64| money(minor, &h.currency);
                out.push_str(&format!(
                    "{:<26} {:>8} {:>6} {:>10.2} {:>12} {:>12} {:>12} {:>12}\n",
                    p.start.to_rfc3339(),
                    p.listings,
                    p.gpus_listed,
                    p.gpu_hours_booked,
                    price(p.price_per_gpu_hour.p10),
                    price(p.price_per_gpu_hour.median),
                    price(p.price_per_gpu_hour.p90),
                    p.clearing_bid_per_gpu_hour.map_or("–".to_owned(), price),
                ));
            }
            ctx.say(&out)?;
        }
    }
    ctx.finish()
}
