//! `offers '<objective>'`: machines by what users feel (goodput at a service-level objective)
//! and the cheapest plan; `offers book '<objective>' --from T --hours H`: book that plan.

use chrono::{DateTime, Utc};
use client::objective::Objective;
use client::types;

use super::output::{fields, money, table};
use super::renter::{DEFAULT_PAGE, MAX_PAGE, booking_fields};
use super::{Auth, Ctx, Failure, Global};

#[derive(Debug, clap::Args)]
#[command(args_conflicts_with_subcommands = true)]
pub struct OffersArgs {
    #[command(subcommand)]
    command: Option<OffersCommand>,
    #[command(flatten)]
    list: ListArgs,
}

#[derive(Debug, clap::Subcommand)]
enum OffersCommand {
    /// Book the cheapest plan that meets the objective: every machine of it whole, all or
    /// none.
    Book(BookArgs),
}

#[derive(Debug, clap::Args)]
struct ListArgs {
    #[command(flatten)]
    global: Global,
    /// The objective, e.g. 'model=qwen3-0.6b context=8k users=50 ttft<=2s itl<=100ms' (the
    /// book's "Command line" page lists every term).
    objective: Option<String>,
    /// At most this many offers (pages are followed until then).
    #[arg(long)]
    limit: Option<u64>,
    /// Every offer, page after page.
    #[arg(long, conflicts_with = "limit")]
    all: bool,
}

#[derive(Debug, clap::Args)]
struct BookArgs {
    #[command(flatten)]
    global: Global,
    /// The objective, as for `offers`.
    objective: String,
    /// When the plan starts (RFC 3339).
    #[arg(long)]
    from: DateTime<Utc>,
    /// How many hours it lasts.
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..=2160))]
    hours: u32,
    /// The plan's key: the same key and objective again return the same plan (a new one is
    /// made up, and reused for this command's own retries, when absent).
    #[arg(long)]
    idempotency_key: Option<String>,
}

fn objective(text: Option<&str>) -> Result<Objective, Failure> {
    Objective::parse(text.unwrap_or_default()).map_err(|e| Failure::usage(e.to_string()))
}

pub async fn offers(args: OffersArgs) -> Result<(), Failure> {
    match args.command {
        Some(OffersCommand::Book(book)) => book_plan(book).await,
        None => list(args.list).await,
    }
}

async fn list(args: ListArgs) -> Result<(), Failure> {
    let o = objective(args.objective.as_deref())?;
    let ctx = Ctx::new(&args.global, Auth::Optional).await?;
    let wanted = if args.all {
        u64::MAX
    } else {
        args.limit.unwrap_or(DEFAULT_PAGE)
    };
    let mut offers = Vec::new();
    let mut cursor = None;
    let mut plan = None;
    let mut available = 0;
    while (offers.len() as u64) < wanted {
        let page_size = (wanted - offers.len() as u64).min(MAX_PAGE);
        let mut call = ctx
            .client
            .search_offers()
            .limit(page_size as i64)
            .model(o.model.clone().unwrap_or_default())
            .context(o.context.unwrap_or_default())
            .users(o.users.unwrap_or_default())
            .ttft_p99_ms(o.ttft_p99_ms.unwrap_or_default())
            .itl_p99_ms(o.itl_p99_ms.unwrap_or_default());
        if let Some(v) = &o.currency {
            call = call.currency(v.clone());
        }
        if let Some(v) = o.max_price_per_hour {
            call = call.max_price_per_hour(v);
        }
        if let Some(v) = o.min_reliability {
            call = call.min_reliability(v);
        }
        if let Some(v) = o.available_from {
            call = call.available_from(v);
        }
        if let Some(v) = o.available_until {
            call = call.available_until(v);
        }
        if o.include_failing {
            call = call.include_failing(true);
        }
        if let Some(c) = cursor.take() {
            call = call.cursor(c);
        }
        let Some(page) = ctx.outcome(call.send().await)? else {
            break;
        };
        offers.extend(page.items);
        plan = page.plan;
        available = page.users_available;
        match page.next_cursor {
            Some(next) => cursor = Some(next),
            None => break,
        }
    }
    let rows: Vec<Vec<String>> = offers
        .iter()
        .map(|offer| {
            let currency = &offer.price_per_hour.currency;
            let per = |v: Option<f64>| v.map_or("-".into(), |p| money(p.round() as i64, currency));
            let g = offer.goodput.as_ref();
            vec![
                offer.listing.id.to_string(),
                offer.listing.title.clone(),
                format!(
                    "{} x{}",
                    offer.listing.hardware.gpu_model, offer.listing.hardware.gpu_count
                ),
                g.map_or_else(
                    || offer.reason.clone().unwrap_or_default(),
                    |g| g.users.to_string(),
                ),
                g.map_or("-".into(), |g| {
                    let samples = g
                        .ttft_samples
                        .map_or(String::new(), |n| format!(" (n={n})"));
                    format!("{:.0} ms{samples}", g.ttft_ms_p99_estimated)
                }),
                g.map_or("-".into(), |g| format!("{:.0} ms", g.itl_ms_p99)),
                money(offer.price_per_hour.amount, currency),
                per(offer.cost_per_user_hour),
                per(offer.price_per_mtok),
            ]
        })
        .collect();
    ctx.say(&table(
        ctx.style,
        &[
            "ID",
            "TITLE",
            "GPU",
            "USERS",
            "TTFT P99 (EST.)",
            "STUTTER P99",
            "PER HOUR",
            "PER USER-HOUR",
            "PER M TOKENS",
        ],
        &rows,
    ))?;
    {
        let users = o.users.unwrap_or_default();
        ctx.say(&match &plan {
            Some(plan) => format!(
                "\nplan: {} machine(s) serve {} users for {} per hour: {}\n",
                plan.listings.len(),
                plan.users,
                money(plan.price_per_hour.amount, &plan.price_per_hour.currency),
                plan.listings
                    .iter()
                    .map(ToString::to_string)
                    .collect::<Vec<_>>()
                    .join(" ")
            ),
            None => format!(
                "\nno plan: the machines that meet the objective serve {available} of {users} users\n"
            ),
        })?;
    }
    ctx.finish()
}

async fn book_plan(args: BookArgs) -> Result<(), Failure> {
    let o = objective(Some(&args.objective))?;
    let ctx = Ctx::new(&args.global, Auth::Required).await?;
    let key = args
        .idempotency_key
        .clone()
        .unwrap_or_else(|| uuid::Uuid::new_v4().to_string());
    let body = types::BookPlanRequest {
        model: o.model.clone().unwrap_or_default(),
        context: o.context.unwrap_or_default(),
        users: o.users.unwrap_or_default(),
        ttft_p99_ms: o.ttft_p99_ms.unwrap_or_default(),
        itl_p99_ms: o.itl_p99_ms.unwrap_or_default(),
        currency: o.currency.clone(),
        max_price_per_hour: o.max_price_per_hour,
        min_reliability: o.min_reliability,
        starts_at: args.from,
        ends_at: args.from + chrono::Duration::hours(i64::from(args.hours)),
        direct_access: None,
        expected_price_per_hour: None,
    };
    let plan = ctx
        .booking_call(&key, "plan", || {
            ctx.client
                .book_offers()
                .idempotency_key(key.as_str())
                .body(body.clone())
                .send()
        })
        .await?;
    if let Some(plan) = plan {
        ctx.say(&fields(
            ctx.style,
            &[
                ("plan", plan.plan_id.to_string()),
                ("users", plan.users.to_string()),
                (
                    "per hour",
                    money(plan.price_per_hour.amount, &plan.price_per_hour.currency),
                ),
            ],
        ))?;
        for booking in &plan.bookings {
            ctx.say("\n")?;
            ctx.say(&booking_fields(&ctx, booking))?;
        }
    }
    ctx.finish()
}
