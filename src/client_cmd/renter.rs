//! What a renter does: search listings, look at one, book it, follow and cancel bookings, and
//! reach the machine.

use std::time::Duration;

use chrono::{DateTime, Utc};
use client::query::Search;
use client::types;

use super::output::{fields, money, table};
use super::{Auth, Ctx, Failure, Global, uuid};

#[derive(Debug, clap::Args)]
pub struct SearchArgs {
    #[command(flatten)]
    global: Global,
    /// What to find, e.g. 'gpu=rtx-3060-12gb price<=0.40 usd tok_s@16k/4>=100 verified
    /// region=eu-west' (the book's "Command line" page lists every term).
    #[arg(default_value = "")]
    query: String,
    /// At most this many listings (pages are followed until then).
    #[arg(long)]
    limit: Option<u64>,
    /// Every matching listing, page after page.
    #[arg(long, conflicts_with = "limit")]
    all: bool,
}

#[derive(Debug, clap::Args)]
pub struct ShowArgs {
    #[command(flatten)]
    global: Global,
    /// The listing's id.
    listing: String,
}

#[derive(Debug, clap::Args)]
pub struct BookArgs {
    #[command(flatten)]
    global: Global,
    #[command(flatten)]
    ask: Ask,
    /// Waive the machine's SSH and HTTPS access: only the gateway reaches the engine, and the
    /// booking carries the listing's performance guarantee (one with direct access has none).
    #[arg(long)]
    no_direct_access: bool,
    /// End the booking (cancelled, with a cancellation's refund) once no gateway request has
    /// come for this many seconds (60 to 604800); needs `--no-direct-access`.
    #[arg(long, value_name = "SECS")]
    stop_when_idle: Option<i64>,
    /// Run this image (one of the listing's `access.containers.images`) in a container of
    /// the booking's own, holding exactly its GPUs.
    #[arg(long)]
    image: Option<String>,
    /// The booking attempt's key: the same key and body again return the same booking (a new
    /// one is made up, and reused for this command's own retries, when absent).
    #[arg(long)]
    idempotency_key: Option<String>,
    /// Print only the new booking's id.
    #[arg(long, short)]
    quiet: bool,
}

/// What a booking asks for: a listing's GPUs over an interval, on demand or at a bid (`book`
/// and `quote`).
#[derive(Debug, clap::Args)]
pub(super) struct Ask {
    /// The listing's id.
    pub listing: String,
    /// When the booking starts (RFC 3339, e.g. 2026-12-04T10:00:00Z).
    #[arg(long)]
    pub from: DateTime<Utc>,
    /// How many hours it lasts.
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..=2160))]
    pub hours: u32,
    /// GPUs of the machine.
    #[arg(long, default_value_t = 1)]
    pub gpus: u32,
    /// Interruptibly at `--bid`: cheaper, but an on-demand booking or a higher bid may
    /// displace it (with notice once it has started, refunded for the rest).
    #[arg(long, requires = "bid")]
    pub interruptible: bool,
    /// The bid per GPU-hour, in minor units of the listing's currency (at least its
    /// `min_bid_per_gpu_hour`).
    #[arg(long, requires = "interruptible", value_name = "MINOR_UNITS")]
    pub bid: Option<i64>,
}

impl Ask {
    pub fn ends_at(&self) -> DateTime<Utc> {
        self.from + chrono::Duration::hours(i64::from(self.hours))
    }

    pub fn tier(&self) -> Option<String> {
        self.interruptible.then(|| "interruptible".to_owned())
    }
}

#[derive(Debug, clap::Args)]
pub struct BookingsArgs {
    #[command(flatten)]
    global: Global,
    #[command(subcommand)]
    command: BookingsCommand,
}

#[derive(Debug, clap::Subcommand)]
enum BookingsCommand {
    /// Your bookings, newest first.
    List {
        /// At most this many.
        #[arg(long)]
        limit: Option<u64>,
        /// All of them, page after page.
        #[arg(long, conflicts_with = "limit")]
        all: bool,
    },
    /// One booking.
    Show { id: String },
    /// Cancel a booking: its GPUs are free again at once; the refund due is recorded (all of
    /// it before the start, the unused share after).
    Cancel { id: String },
    /// Wait until a booking reaches a state (or a later one); exit 75 when it does not in time,
    /// 1 when it ended without.
    Wait {
        id: String,
        #[arg(long, value_enum)]
        until: WaitFor,
        /// Seconds to wait at most.
        #[arg(long, default_value_t = 300)]
        timeout: u64,
    },
    /// What the booking used through the metered gateway, per five minutes.
    Usage { id: String },
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, clap::ValueEnum)]
enum WaitFor {
    Confirmed,
    Active,
    Completed,
}

#[derive(Debug, clap::Args)]
pub struct AccessArgs {
    #[command(flatten)]
    global: Global,
    /// The booking's id.
    booking: String,
}

#[derive(Debug, clap::Args)]
pub struct SshArgs {
    #[command(flatten)]
    global: Global,
    /// The booking's id.
    booking: String,
    /// The private key to log in with (`ssh -i`); ssh's own choice by default.
    #[arg(short = 'i', long)]
    identity: Option<std::path::PathBuf>,
    /// An option for ssh (`-o KEY=VALUE`), as many as needed.
    #[arg(short = 'o', long = "option")]
    options: Vec<String>,
    /// A command to run on the machine instead of a shell (after `--`).
    #[arg(last = true)]
    command: Vec<String>,
}

/// The API's page size: the most it gives at once.
pub(super) const MAX_PAGE: u64 = 100;
pub(super) const DEFAULT_PAGE: u64 = 20;

/// `search '<query>'`: listings matching the query, cheapest first unless it sorts otherwise.
pub async fn search(args: SearchArgs) -> Result<(), Failure> {
    let query = Search::parse(&args.query).map_err(|e| Failure::usage(e.to_string()))?;
    let ctx = Ctx::new(&args.global, Auth::Optional).await?;
    let wanted = if args.all {
        u64::MAX
    } else {
        args.limit.unwrap_or(DEFAULT_PAGE)
    };
    let mut hits = Vec::new();
    let mut cursor = None;
    while (hits.len() as u64) < wanted {
        let page_size = (wanted - hits.len() as u64).min(MAX_PAGE);
        let mut call = ctx.client.search_listings().limit(page_size as i64);
        if let Some(v) = &query.gpu {
            call = call.gpu(v.clone());
        }
        if let Some(v) = query.min_vram_gb {
            call = call.min_vram_gb(v);
        }
        if let Some(v) = query.max_price {
            call = call.max_price(v);
        }
        if let Some(v) = &query.currency {
            call = call.currency(v.clone());
        }
        if let Some(v) = query.min_total_tok_s {
            call = call.min_total_tok_s(v);
        }
        if let Some(v) = query.context {
            call = call.context(v);
        }
        if let Some(v) = query.concurrency {
            call = call.concurrency(v);
        }
        if let Some(v) = query.verified {
            call = call.verified(v);
        }
        if let Some(v) = &query.region {
            call = call.region(v.clone());
        }
        if let Some(v) = query.gpu_count {
            call = call.gpu_count(v);
        }
        if let Some(v) = query.available_from {
            call = call.available_from(v);
        }
        if let Some(v) = query.available_until {
            call = call.available_until(v);
        }
        if let Some(v) = &query.sort {
            call = call.sort(v.clone());
        }
        if let Some(c) = cursor.take() {
            call = call.cursor(c);
        }
        let Some(page) = ctx.outcome(call.send().await)? else {
            break;
        };
        hits.extend(page.items);
        match page.next_cursor {
            Some(next) => cursor = Some(next),
            None => break,
        }
    }
    let rows: Vec<Vec<String>> = hits
        .iter()
        .map(|hit| {
            vec![
                hit.id.to_string(),
                hit.title.clone(),
                format!("{} x{}", hit.hardware.gpu_model, hit.hardware.gpu_count),
                hit.region.clone(),
                money(hit.price.amount_per_gpu_hour, &hit.price.currency),
                hit.match_
                    .total_tok_s
                    .map_or("-".into(), |t| format!("{t:.1}")),
                hit.match_
                    .price_per_mtok
                    .map_or("-".into(), |p| money(p.round() as i64, &hit.price.currency)),
                ctx.style.state(&hit.verification_state),
            ]
        })
        .collect();
    let cell = match (query.context, query.concurrency) {
        (Some(c), Some(b)) => format!("TOK/S@{c}/{b}"),
        _ => "BEST TOK/S".into(),
    };
    ctx.say(&table(
        ctx.style,
        &[
            "ID",
            "TITLE",
            "GPU",
            "REGION",
            "PER GPU-HOUR",
            &cell,
            "PER M TOKENS",
            "BADGE",
        ],
        &rows,
    ))?;
    ctx.finish()
}

/// `show LISTING`.
pub async fn show(args: ShowArgs) -> Result<(), Failure> {
    let id = uuid("listing", &args.listing)?;
    let ctx = Ctx::new(&args.global, Auth::Optional).await?;
    if let Some(listing) = ctx.outcome(ctx.client.get_listing().id(id).send().await)? {
        let mut pairs = vec![
            ("id", listing.id.to_string()),
            ("title", listing.title.clone()),
            ("organisation", listing.org_id.to_string()),
            (
                "gpu",
                format!(
                    "{} x{}, {} GB each",
                    listing.hardware.gpu_model,
                    listing.hardware.gpu_count,
                    listing.hardware.vram_gb
                ),
            ),
            (
                "host",
                format!(
                    "{}, {} GB RAM",
                    listing.hardware.cpu_model, listing.hardware.ram_gb
                ),
            ),
            ("region", listing.region.clone()),
            (
                "price",
                format!(
                    "{} per GPU-hour",
                    money(listing.price.amount_per_gpu_hour, &listing.price.currency)
                ),
            ),
            ("status", ctx.style.state(&listing.status)),
            ("badge", ctx.style.state(&listing.verification_state)),
        ];
        if let Some(v) = &listing.verification {
            pairs.push(("report", v.report_id.to_string()));
            pairs.push(("verified at", v.verified_at.to_rfc3339()));
            if let Some(t) = v.best_total_tok_s {
                pairs.push(("best total", format!("{t:.1} tok/s")));
            }
            if let Some(t) = v.single_stream_tok_s {
                pairs.push(("one stream", format!("{t:.1} tok/s")));
            }
            pairs.push((
                "hardware checked",
                if v.hardware_checked { "yes" } else { "no" }.into(),
            ));
        }
        if let Some(g) = &listing.guarantee {
            pairs.push((
                "guarantee",
                format!("{:.0} % of the verified speed", g.min_fraction * 100.0),
            ));
        }
        ctx.say(&fields(ctx.style, &pairs))?;
    }
    ctx.finish()
}

/// `book LISTING --from T --hours H`: one booking, under an idempotency key that this
/// command's retries reuse (a lost answer never books twice).
pub async fn book(args: BookArgs) -> Result<(), Failure> {
    let listing = uuid("listing", &args.ask.listing)?;
    let ctx = Ctx::new(&args.global, Auth::Required).await?;
    let key = args
        .idempotency_key
        .clone()
        .unwrap_or_else(|| uuid::Uuid::new_v4().to_string());
    let body = types::CreateBookingRequest {
        listing_id: listing,
        gpu_count: i64::from(args.ask.gpus),
        starts_at: args.ask.from,
        ends_at: args.ask.ends_at(),
        direct_access: args.no_direct_access.then_some(false),
        expected_amount_per_gpu_hour: None,
        stop_when_idle_secs: args.stop_when_idle,
        container: args.image.clone().map(|image| types::BookingContainerView {
            image,
            command: None,
            env: Vec::new(),
        }),
        tier: args.ask.tier(),
        bid_per_gpu_hour: args.ask.bid,
    };
    let booking = ctx
        .booking_call(&key, "booking", || {
            ctx.client
                .create_booking()
                .idempotency_key(key.as_str())
                .body(body.clone())
                .send()
        })
        .await?;
    if let Some(booking) = booking {
        if args.quiet {
            ctx.say(&format!("{}\n", booking.id))?;
        } else {
            ctx.say(&booking_fields(&ctx, &booking))?;
        }
    }
    ctx.finish()
}

pub(super) fn booking_fields(ctx: &Ctx, b: &types::BookingView) -> String {
    let mut pairs = vec![
        ("id", b.id.to_string()),
        ("listing", b.listing_id.to_string()),
        ("status", ctx.style.state(&b.status)),
        ("gpus", b.gpu_count.to_string()),
        ("from", b.starts_at.to_rfc3339()),
        ("until", b.ends_at.to_rfc3339()),
        ("price", money(b.price.amount, &b.price.currency)),
        ("payment", b.payment.provider.clone()),
        ("tier", b.tier.clone()),
    ];
    if let Some(bid) = b.bid_per_gpu_hour {
        pairs.push((
            "bid",
            format!("{} per GPU-hour", money(bid, &b.price.currency)),
        ));
    }
    if let Some(at) = b.min_bid_per_gpu_hour_now {
        pairs.push((
            "bid that holds now",
            format!("{} per GPU-hour", money(at, &b.price.currency)),
        ));
    }
    if let Some(r) = &b.bid_raise {
        pairs.push((
            "bid raise",
            format!(
                "to {} per GPU-hour: {} (charge {})",
                money(r.bid_per_gpu_hour, &b.price.currency),
                ctx.style.state(&r.status),
                money(r.payment.amount, &r.payment.currency)
            ),
        ));
        if let (Some(intent), true) = (&r.payment.payment_intent_id, r.status == "pending_payment")
        {
            pairs.push(("raise payment", intent.clone()));
        }
    }
    if let Some(d) = &b.displacement {
        pairs.push(("displaced at", d.at.to_rfc3339()));
        pairs.push((
            "displacement refund",
            money(d.refund.amount, &d.refund.currency),
        ));
    }
    if let Some(refund) = &b.refund {
        pairs.push(("refund", money(refund.amount, &refund.currency)));
    }
    if let Some(g) = &b.guarantee {
        pairs.push((
            "guarantee",
            format!(
                "{:.0} %, credit so far {}",
                g.min_fraction * 100.0,
                money(g.credit.amount, &g.credit.currency)
            ),
        ));
    }
    fields(ctx.style, &pairs)
}

/// `bookings list|show|cancel|wait|usage`.
pub async fn bookings(args: BookingsArgs) -> Result<(), Failure> {
    let ctx = Ctx::new(&args.global, Auth::Required).await?;
    match args.command {
        BookingsCommand::List { limit, all } => {
            let wanted = if all {
                u64::MAX
            } else {
                limit.unwrap_or(DEFAULT_PAGE)
            };
            let mut rows = Vec::new();
            let mut cursor: Option<uuid::Uuid> = None;
            while (rows.len() as u64) < wanted {
                let page_size = (wanted - rows.len() as u64).min(MAX_PAGE);
                let mut call = ctx.client.list_bookings().limit(page_size as i64);
                if let Some(c) = cursor.take() {
                    call = call.cursor(c);
                }
                let Some(page) = ctx.outcome(call.send().await)? else {
                    break;
                };
                rows.extend(page.items.iter().map(|b| {
                    vec![
                        b.id.to_string(),
                        b.listing_id.to_string(),
                        ctx.style.state(&b.status),
                        b.gpu_count.to_string(),
                        b.starts_at.format("%Y-%m-%d %H:%M").to_string(),
                        b.ends_at.format("%Y-%m-%d %H:%M").to_string(),
                        money(b.price.amount, &b.price.currency),
                    ]
                }));
                match page.next_cursor.as_deref().map(|c| c.parse()) {
                    Some(Ok(next)) => cursor = Some(next),
                    _ => break,
                }
            }
            ctx.say(&table(
                ctx.style,
                &["ID", "LISTING", "STATUS", "GPUS", "FROM", "UNTIL", "PRICE"],
                &rows,
            ))?;
        }
        BookingsCommand::Show { id } => {
            let id = uuid("booking", &id)?;
            if let Some(b) = ctx.outcome(ctx.client.get_booking().id(id).send().await)? {
                ctx.say(&booking_fields(&ctx, &b))?;
            }
        }
        BookingsCommand::Cancel { id } => {
            let id = uuid("booking", &id)?;
            if let Some(b) = ctx.outcome(ctx.client.cancel_booking().id(id).send().await)? {
                ctx.say(&booking_fields(&ctx, &b))?;
            }
        }
        BookingsCommand::Wait { id, until, timeout } => {
            let id = uuid("booking", &id)?;
            wait(&ctx, id, until, Duration::from_secs(timeout)).await?;
        }
        BookingsCommand::Usage { id } => {
            let id = uuid("booking", &id)?;
            if let Some(u) = ctx.outcome(ctx.client.get_booking_usage().id(id).send().await)? {
                let mut out = fields(
                    ctx.style,
                    &[
                        ("requests", u.totals.requests.to_string()),
                        ("prompt tokens", u.totals.prompt_tokens.to_string()),
                        ("output tokens", u.totals.output_tokens.to_string()),
                    ],
                );
                let rows: Vec<Vec<String>> = u
                    .buckets
                    .iter()
                    .map(|b| {
                        vec![
                            b.start.format("%Y-%m-%d %H:%M:%S").to_string(),
                            b.requests.to_string(),
                            b.output_tokens.to_string(),
                            b.delivered_fraction
                                .map_or("-".into(), |f| format!("{:.0} %", f * 100.0)),
                            if b.slow_reader { "yes" } else { "no" }.into(),
                            b.credit_minor.to_string(),
                        ]
                    })
                    .collect();
                if !rows.is_empty() {
                    out.push('\n');
                    out.push_str(&table(
                        ctx.style,
                        &[
                            "BUCKET",
                            "REQUESTS",
                            "OUTPUT TOKENS",
                            "DELIVERED",
                            "SLOW READER",
                            "CREDIT (MINOR)",
                        ],
                        &rows,
                    ));
                }
                ctx.say(&out)?;
            }
        }
    }
    ctx.finish()
}

/// The order a booking's states come in; `None` for the ends it never leaves without
/// reaching the later ones.
fn progress(status: &str) -> Option<WaitFor> {
    match status {
        "confirmed" => Some(WaitFor::Confirmed),
        "active" => Some(WaitFor::Active),
        "completed" => Some(WaitFor::Completed),
        _ => None,
    }
}

async fn wait(ctx: &Ctx, id: uuid::Uuid, until: WaitFor, timeout: Duration) -> Result<(), Failure> {
    let deadline = tokio::time::Instant::now() + timeout;
    let mut last = String::new();
    loop {
        let Some(b) = ctx.outcome(ctx.client.get_booking().id(id).send().await)? else {
            // A dry run: the one call is printed.
            return Ok(());
        };
        if b.status != last && ctx.human() {
            #[allow(clippy::print_stderr)]
            {
                eprintln!("booking {id}: {}", b.status);
            }
            last.clone_from(&b.status);
        }
        if progress(&b.status).is_some_and(|p| p >= until) {
            return ctx.say(&booking_fields(ctx, &b));
        }
        if matches!(b.status.as_str(), "cancelled" | "expired" | "completed") {
            return Err(Failure::Ended {
                code: format!("booking_{}", b.status),
                detail: format!("booking {id} will not become {until:?}").to_lowercase(),
            });
        }
        if tokio::time::Instant::now() >= deadline {
            return Err(Failure::TimedOut(format!(
                "booking {id} is still {} after {} s",
                b.status,
                timeout.as_secs()
            )));
        }
        tokio::time::sleep(Duration::from_millis(500)).await;
    }
}

/// `access BOOKING`: how to reach the machine during the booking.
pub async fn access(args: AccessArgs) -> Result<(), Failure> {
    let id = uuid("booking", &args.booking)?;
    let ctx = Ctx::new(&args.global, Auth::Required).await?;
    if let Some(grant) = ctx.outcome(ctx.client.get_booking_access().id(id).send().await)? {
        let mut pairs = vec![
            ("booking", grant.booking_id.to_string()),
            (
                "valid",
                format!(
                    "{} to {}",
                    grant.valid_from.to_rfc3339(),
                    grant.valid_until.to_rfc3339()
                ),
            ),
            ("token", grant.token.clone()),
        ];
        if let Some(ssh) = &grant.ssh {
            pairs.push((
                "ssh",
                format!("ssh -p {} {}@{}", ssh.port, ssh.user, ssh.host),
            ));
        }
        if let Some(url) = &grant.https_url {
            pairs.push(("https", url.clone()));
        }
        let mut out = fields(ctx.style, &pairs);
        out.push_str(&format!(
            "\nThe token opens the machine itself (the provider checks it with POST /v1/access/introspect).\n\
             The metered gateway takes your own credential instead, never this token:\n  \
             curl {}/v1/gateway/{id}/v1/chat/completions -H \"Authorization: Bearer $GPUMARKET_TOKEN\" \\\n    \
             -H 'content-type: application/json' -d '{{\"model\": \"...\", \"messages\": [{{\"role\": \"user\", \"content\": \"Hi\"}}]}}'\n",
            ctx.server
        ));
        ctx.say(&out)?;
    }
    ctx.finish()
}

/// `ssh BOOKING [-- COMMAND]`: logs in to the booked machine as its access says (with an agent,
/// the booking's own account), through the system's `ssh`, which takes this process's place.
pub async fn ssh(args: SshArgs) -> Result<(), Failure> {
    use std::os::unix::process::CommandExt;
    let id = uuid("booking", &args.booking)?;
    let ctx = Ctx::new(&args.global, Auth::Required).await?;
    let Some(grant) = ctx.outcome(ctx.client.get_booking_access().id(id).send().await)? else {
        return ctx.finish();
    };
    let Some(ssh) = &grant.ssh else {
        return Err(Failure::Ended {
            code: "no_ssh".into(),
            detail: "this booking reaches its machine through the gateway only (no SSH access)"
                .into(),
        });
    };
    let mut command = std::process::Command::new("ssh");
    command.args(["-p", &ssh.port.to_string()]);
    if let Some(identity) = &args.identity {
        command.arg("-i").arg(identity);
    }
    for option in &args.options {
        command.args(["-o", option]);
    }
    command.arg(format!("{}@{}", ssh.user, ssh.host));
    if !args.command.is_empty() {
        command.arg("--").args(&args.command);
    }
    // Only returns when ssh could not be started.
    let error = command.exec();
    Err(Failure::Io(format!("running ssh: {error}")))
}

/// `DateTime` arguments accept RFC 3339.
#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn states_are_waited_for_in_their_order() {
        assert!(progress("active").is_some_and(|p| p >= WaitFor::Confirmed));
        assert!(progress("confirmed").is_some_and(|p| p < WaitFor::Active));
        assert!(progress("pending_payment").is_none());
        assert!(progress("cancelled").is_none());
    }
}

/// `bid BOOKING AMOUNT`: raise an interruptible booking's bid per GPU-hour (minor units).
#[derive(Debug, clap::Args)]
pub struct BidArgs {
    #[command(flatten)]
    global: Global,
    /// The booking's id.
    booking: String,
    /// The new bid per GPU-hour, in minor units of the booking's currency: above the one in
    /// force (a bid is never lowered).
    amount: i64,
}

pub async fn bid(args: BidArgs) -> Result<(), Failure> {
    let booking = uuid("booking", &args.booking)?;
    let ctx = Ctx::new(&args.global, Auth::Required).await?;
    let body = types::RaiseBidRequest {
        bid_per_gpu_hour: args.amount,
    };
    if let Some(b) = ctx.outcome(ctx.client.raise_bid().id(booking).body(body).send().await)? {
        ctx.say(&booking_fields(&ctx, &b))?;
    }
    ctx.finish()
}
