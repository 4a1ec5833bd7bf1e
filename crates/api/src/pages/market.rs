//! The marketplace as pages: `/marketplace` (search as `GET /v1/listings` does, spending the
//! same search budget), each listing's page with what it takes to rent it (its free GPUs over
//! the next 14 days, drawn server-side from the availability API, and the exact commands to
//! book it), and `/pro` (the plans, read from the plan data the server enforces).

use actix_web::http::StatusCode;
use actix_web::{HttpRequest, HttpResponse, web};
use app::{App, AppError};
use askama::Template;
use chrono::{DateTime, Duration, DurationRound, Utc};
use domain::BadgeState;
use uuid::Uuid;

use app::limits::RateClass;

use super::Page;
use super::format::{number, rate};
use super::i18n::Labels;
use super::lists::{Cell, Filter, Row, paged};
use super::report::Rows;
use super::svg::uptime_svg;
use super::{Frame, html, respond, uuid_of};

/// The marketplace's pages.
pub fn pages() -> Vec<Page> {
    vec![
        Page::get("/marketplace", Some(RateClass::Search), marketplace_page),
        Page::get("/listings/{id}", Some(RateClass::Reads), listing_page),
        Page::get("/pro", Some(RateClass::Reads), pro_page),
    ]
}

/// A badge's words.
fn badge_words(l: &'static Labels, state: BadgeState) -> &'static str {
    match state {
        BadgeState::Verified => l.badge_verified,
        BadgeState::Expired => l.badge_expired,
        BadgeState::Demoted => l.badge_demoted,
        BadgeState::Unverified => l.badge_unverified,
    }
}

// ---- a listing ----------------------------------------------------------------------------

#[derive(Template)]
#[template(path = "listing.html")]
struct ListingPage {
    frame: Frame,
    /// Only what the page shows of the listing (never its engine's address).
    title: String,
    badge: &'static str,
    badge_words: &'static str,
    facts: Rows,
    report_href: Option<String>,
    catalog: Vec<(String, String)>,
    rent: Rent,
    /// The last 30 days' uptime as SVG (numbers and dates only).
    uptime_svg: String,
}

async fn listing_page(
    req: HttpRequest,
    app: web::Data<App>,
    id: web::Path<String>,
) -> HttpResponse {
    respond(&req, async {
        let id = uuid_of(&id)?;
        let listing = app.listing(id.into()).await?;
        let mut frame = Frame::new(&req, format!("/v1/listings/{id}"));
        let l = frame.l;
        frame.title = listing.title.clone();
        let badge_words = badge_words(l, listing.verification_state);
        let time = |t: Option<chrono::DateTime<chrono::Utc>>| t.map(|t| t.to_rfc3339());
        let mut facts: Rows = vec![
            (
                l.gpu,
                format!("{} × {}", listing.gpu_count, listing.gpu_model),
            ),
            (l.vram, format!("{} GB", listing.vram_gb)),
            (
                l.hardware_word,
                if listing.hardware_confirmed {
                    l.hardware_confirmed
                } else {
                    l.hardware_claimed
                }
                .to_owned(),
            ),
            (l.cpu, listing.cpu_model.clone()),
            (l.ram, format!("{} GB", listing.ram_gb)),
            (l.region, listing.region.clone()),
            (l.price, listing.price.to_string()),
            (l.served_model, listing.engine_model.clone()),
        ];
        if let (Some(from), Some(until)) =
            (time(listing.available_from), time(listing.available_until))
        {
            facts.push((l.available, format!("{from} – {until}")));
        }
        facts.extend(time(listing.verified_at).map(|t| (l.verified_at, t)));
        facts.extend(time(listing.verification_expires_at).map(|t| (l.badge_expires, t)));
        facts.extend(
            listing
                .headline_total_tok_s
                .map(|v| (l.best_total, number(v, 1))),
        );
        facts.extend(
            listing
                .headline_per_request_tok_s
                .map(|v| (l.single_stream, number(v, 1))),
        );
        facts.extend(listing.guarantee_min_bp.map(|bp| {
            (
                l.guarantee,
                format!(
                    "{} % {}",
                    number(f64::from(bp) / 100.0, if bp % 100 == 0 { 0 } else { 2 }),
                    l.guarantee_of_verified
                ),
            )
        }));
        let catalog = frame.catalog_links(
            listing.catalog_gpu.as_deref(),
            listing.catalog_model.as_deref(),
        );
        let report_href = listing
            .latest_report_id
            .map(|r| frame.link(&format!("/reports/{}", Uuid::from(r))));
        let rent = rent(&app, id, &super::report_page::reached(&app, &req)).await?;
        let uptime = app.uptime(id.into()).await?;
        facts.push((
            l.state_now,
            match uptime.state {
                domain::uptime::Liveness::Up { since }
                | domain::uptime::Liveness::Down { since } => {
                    format!("{} · {}", uptime.state.name(), since.to_rfc3339())
                }
                domain::uptime::Liveness::Maintenance { until } => {
                    format!("maintenance · {}", until.to_rfc3339())
                }
                domain::uptime::Liveness::Unknown => l.not_observed.to_owned(),
            },
        ));
        facts.extend(
            uptime
                .reliability
                .map(|r| (l.reliability, format!("{} %", number(r * 100.0, 2)))),
        );
        let interrupted = uptime.interruptions_30d;
        facts.push((
            l.interrupted_30d,
            format!(
                "{} · {} GPU-h",
                interrupted.bookings,
                number(interrupted.gpu_hours, 1)
            ),
        ));
        let uptime_svg = uptime_svg(&uptime.days);
        let lang = frame.lang;
        Ok((
            ListingPage {
                frame,
                uptime_svg,
                badge: listing.verification_state.as_str(),
                badge_words,
                facts,
                report_href,
                catalog,
                rent,
                title: listing.title,
            },
            lang,
        ))
    })
    .await
}

/// How many days ahead the rent strip shows.
const RENT_DAYS: i64 = 14;

/// What renting a listing takes: its free GPUs ahead, and the commands that book it.
struct Rent {
    svg: String,
    /// The first free hour, as the commands' start; `None` when nothing is free.
    start: Option<String>,
    cli: String,
    curl: String,
}

/// The listing's free GPUs over the next 14 days, and the commands that book one GPU for
/// the first free whole hour.
async fn rent(app: &App, id: Uuid, public: &str) -> Result<Rent, AppError> {
    let now = Utc::now();
    let from = now.duration_trunc(Duration::hours(1)).unwrap_or(now);
    let to = from + Duration::days(RENT_DAYS);
    let availability = app.availability(id.into(), from, to).await?;
    let capacity = availability.listing.gpu_count;
    let segments: Vec<_> = availability
        .segments
        .iter()
        .map(|&(start, end, free, _)| (start, end, free))
        .collect();
    let start = first_free_hour(&segments, now);
    let (starts_at, ends_at) = match start {
        Some(s) => (s.to_rfc3339(), (s + Duration::hours(1)).to_rfc3339()),
        None => ("…".to_owned(), "…".to_owned()),
    };
    let cli = format!(
        "gpumarket login --server {public} --email you@example.com\n\
         gpumarket book {id} --from {starts_at} --hours 1 --gpus 1 --server {public}"
    );
    let curl = format!(
        "TOKEN=$(curl -s -X POST {public}/v1/auth/login -H \"Content-Type: application/json\" \\\n  \
         -d '{{\"email\": \"you@example.com\", \"password\": \"…\"}}' | jq -r .access_token)\n\
         curl -X POST {public}/v1/bookings \\\n  \
         -H \"Authorization: Bearer $TOKEN\" -H \"Content-Type: application/json\" \\\n  \
         -H \"Idempotency-Key: $(uuidgen)\" \\\n  \
         -d '{{\"listing_id\": \"{id}\", \"gpu_count\": 1, \"starts_at\": \"{starts_at}\", \"ends_at\": \"{ends_at}\"}}'"
    );
    Ok(Rent {
        svg: availability_svg(&segments, from, to, capacity),
        start: start.map(|s| s.to_rfc3339()),
        cli,
        curl,
    })
}

/// The first whole hour from `now` on with a GPU free all through it (across segments:
/// one GPU free, then two, is a GPU free all along).
fn first_free_hour(
    segments: &[(DateTime<Utc>, DateTime<Utc>, i32)],
    now: DateTime<Utc>,
) -> Option<DateTime<Utc>> {
    // Stretches with a GPU free, neighbours joined.
    let mut stretches: Vec<(DateTime<Utc>, DateTime<Utc>)> = Vec::new();
    for &(start, end, _) in segments.iter().filter(|s| s.2 > 0) {
        match stretches.last_mut() {
            Some(last) if last.1 == start => last.1 = end,
            _ => stretches.push((start, end)),
        }
    }
    stretches.into_iter().find_map(|(start, end)| {
        let start = start.max(now);
        let hour = start.duration_trunc(Duration::hours(1)).ok()?;
        let hour = if hour < start {
            hour + Duration::hours(1)
        } else {
            hour
        };
        (hour + Duration::hours(1) <= end).then_some(hour)
    })
}

/// Free GPUs over `[from, to)` as SVG: a band per segment (its width its time, its height
/// its free GPUs of `capacity`; the segment's times and count also in `data-` attributes
/// and a `<title>`), and a tick a day. Numbers and times only.
fn availability_svg(
    segments: &[(DateTime<Utc>, DateTime<Utc>, i32)],
    from: DateTime<Utc>,
    to: DateTime<Utc>,
    capacity: i32,
) -> String {
    const W: f64 = 560.0;
    const H: f64 = 40.0;
    const LABELS: f64 = 12.0;
    let span = (to - from).num_seconds().max(1) as f64;
    let x = |t: DateTime<Utc>| ((t - from).num_seconds() as f64 / span * W).clamp(0.0, W);
    let mut svg = format!(
        "<svg xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 {W} {}\" role=\"img\">",
        H + LABELS
    );
    for &(start, end, free) in segments {
        let height = if capacity > 0 {
            H * f64::from(free.max(0)) / f64::from(capacity)
        } else {
            0.0
        };
        let class = if free > 0 { "free" } else { "full" };
        svg.push_str(&format!(
            "<rect class=\"span {class}\" data-from=\"{}\" data-to=\"{}\" data-free=\"{free}\" x=\"{:.1}\" y=\"{:.1}\" width=\"{:.1}\" height=\"{:.1}\"><title>{} – {}: {free}</title></rect>",
            start.to_rfc3339(),
            end.to_rfc3339(),
            x(start),
            H - height.max(1.0),
            (x(end) - x(start)).max(0.5),
            height.max(1.0),
            start.format("%Y-%m-%d %H:%M"),
            end.format("%Y-%m-%d %H:%M"),
        ));
    }
    let mut day = from.duration_trunc(Duration::days(1)).unwrap_or(from) + Duration::days(1);
    while day < to {
        let at = x(day);
        svg.push_str(&format!(
            "<line class=\"tick\" x1=\"{at:.1}\" y1=\"0\" x2=\"{at:.1}\" y2=\"{H}\"/><text x=\"{at:.1}\" y=\"{}\">{}</text>",
            H + LABELS - 2.0,
            day.format("%d")
        ));
        day += Duration::days(1);
    }
    svg.push_str("</svg>");
    svg
}

// ---- the marketplace ----------------------------------------------------------------------

/// The sorts the marketplace offers, as `GET /v1/listings` names them.
fn sorts(l: &'static Labels) -> [(String, String); 4] {
    [
        ("price".to_owned(), l.sort_price.to_owned()),
        ("tok_s".to_owned(), l.sort_tok_s.to_owned()),
        (
            "price_per_mtok".to_owned(),
            l.sort_price_per_mtok.to_owned(),
        ),
        ("reliability".to_owned(), l.sort_reliability.to_owned()),
    ]
}

/// An amount in minor units of `currency`, with two more decimals than it has (a price per
/// million tokens is often a fraction of a cent).
fn minor_amount(minor: f64, currency: domain::Currency) -> String {
    let exponent = currency.exponent();
    let decimals = exponent as usize + 2;
    format!(
        "{} {currency}",
        number(minor / 10f64.powi(exponent as i32), decimals)
    )
}

async fn marketplace_page(req: HttpRequest, app: web::Data<App>) -> HttpResponse {
    use crate::routes::listings::search::SearchQuery;
    let (mut page, parsed, filters) = paged::<SearchQuery>(
        &req,
        "/v1/listings",
        "/marketplace",
        |l| l.nav_marketplace,
        |l| l.marketplace_text,
    );
    let l = page.frame.l;
    page.button = l.search;
    page.empty = l.no_listings;
    let gpus = match app.gpus() {
        Ok(gpus) => gpus
            .iter()
            .map(|g| (g.id.clone(), g.name.clone()))
            .collect::<Vec<_>>(),
        Err(e) => return super::error_page(&req, e),
    };
    let query = parsed.as_ref().ok();
    let text = |f: fn(&SearchQuery) -> Option<String>| query.and_then(f);
    let mut sort = Filter::choice(
        "sort",
        l.sort,
        sorts(l),
        Some(query.and_then(|q| q.sort.as_deref()).unwrap_or("price")),
    );
    sort.any = false;
    page.filters = vec![
        Filter::choice("gpu", l.gpu, gpus, query.and_then(|q| q.gpu.as_deref())),
        Filter::text(
            "gpu_model",
            l.gpu_model_exact,
            text(|q| q.gpu_model.clone()),
        ),
        Filter::text(
            "min_vram_gb",
            l.min_vram,
            text(|q| q.min_vram_gb.map(|v| v.to_string())),
        ),
        Filter::text(
            "max_price",
            l.max_price,
            text(|q| q.max_price.map(|v| v.to_string())),
        ),
        Filter::text("currency", l.currency, text(|q| q.currency.clone())),
        Filter::text("region", l.region, text(|q| q.region.clone())),
        Filter::choice(
            "verified",
            l.verified_only,
            [("true".to_owned(), l.yes.to_owned())],
            query
                .and_then(|q| q.verified)
                .filter(|v| *v)
                .map(|_| "true"),
        ),
        Filter::text(
            "min_total_tok_s",
            l.min_total,
            text(|q| q.min_total_tok_s.map(|v| v.to_string())),
        ),
        Filter::text(
            "context",
            l.context_tokens,
            text(|q| q.context.map(|v| v.to_string())),
        ),
        Filter::text(
            "concurrency",
            l.concurrency,
            text(|q| q.concurrency.map(|v| v.to_string())),
        ),
        sort,
    ];
    page.columns = vec![
        l.listing,
        l.gpu,
        l.region,
        l.price,
        l.total_tok_s,
        l.price_per_mtok,
        l.verified,
        l.badge_age,
        l.reliability,
    ];
    let found = match parsed {
        Ok(query) => app.search_listings(query.into()).await.and_then(|found| {
            let hits = found
                .items
                .iter()
                .map(|hit| Ok((hit.listing()?, hit.total_tok_s, hit.price_per_mtok)))
                .collect::<Result<Vec<_>, AppError>>()?;
            Ok((hits, found.next_cursor))
        }),
        Err(e) => Err(e),
    };
    let now = Utc::now();
    page.show(
        &req,
        found,
        &filters,
        |frame, (listing, total_tok_s, price_per_mtok)| {
            let id = Uuid::from(listing.id).to_string();
            let currency = listing.price.currency();
            let age = listing.verified_at.map_or_else(
                || "—".to_owned(),
                |at| format!("{} {}", (now - at).num_days(), l.days_old),
            );
            let reliability = listing
                .reliability
                .map_or_else(|| "—".to_owned(), |r| format!("{} %", number(r * 100.0, 2)));
            let per_mtok =
                price_per_mtok.map_or_else(|| "—".to_owned(), |v| minor_amount(v, currency));
            let badge = match listing.verification_state {
                BadgeState::Verified => "badge verified",
                _ => "badge unverified",
            };
            Row {
                cells: vec![
                    Cell::link(listing.title, frame.link(&format!("/listings/{id}"))),
                    Cell::text(format!("{} × {}", listing.gpu_count, listing.gpu_model)),
                    Cell::text(listing.region),
                    Cell::text(listing.price.to_string()).class("num price"),
                    Cell::text(rate(total_tok_s)).class("num total"),
                    Cell::text(per_mtok).class("num per-mtok"),
                    Cell::text(badge_words(l, listing.verification_state)).class(badge),
                    Cell::text(age).class("num"),
                    Cell::text(reliability).class("num"),
                ],
                id,
            }
        },
    )
}

// ---- Pro ----------------------------------------------------------------------------------

/// A plan's column: its limits as the server enforces them.
struct PlanColumn {
    name: &'static str,
    runs_per_day: u32,
    spot_check_every_secs: u64,
    spot_check_hours: String,
    private_reports: bool,
    rate_limit_scale: u32,
    /// Requests a minute per class: (class, limit; `None` unlimited).
    rates: Vec<(&'static str, Option<u32>)>,
}

#[derive(Template)]
#[template(path = "pro.html")]
struct ProPage {
    frame: Frame,
    plans: Vec<PlanColumn>,
    classes: Vec<&'static str>,
}

async fn pro_page(req: HttpRequest, app: web::Data<App>) -> HttpResponse {
    use app::limits::RateClass;
    // No JSON lists the plans; an organisation's own is `GET /v1/orgs/{id}/billing`.
    let mut frame = Frame::new(&req, String::new());
    frame.title = frame.l.pro_title.to_owned();
    // The classes a plan scales (auth is counted by address, whatever the plan).
    let classes = [
        RateClass::Reads,
        RateClass::Writes,
        RateClass::Search,
        RateClass::Events,
        RateClass::Gateway,
    ];
    let plans = app
        .plans()
        .into_iter()
        .map(|plan| PlanColumn {
            name: plan.name,
            runs_per_day: plan.verification_runs_per_day,
            spot_check_every_secs: plan.spot_check_every_secs,
            spot_check_hours: number(plan.spot_check_every_secs as f64 / 3600.0, 1),
            private_reports: plan.private_reports,
            rate_limit_scale: plan.rate_limit_scale,
            rates: classes
                .iter()
                .map(|&c| (c.name(), app.enforced_per_minute(c, plan.rate_limit_scale)))
                .collect(),
        })
        .collect();
    let lang = frame.lang;
    let page = ProPage {
        frame,
        plans,
        classes: classes.iter().map(|c| c.name()).collect(),
    };
    html(StatusCode::OK, lang, page.render())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(hour: i64, minute: i64) -> DateTime<Utc> {
        DateTime::parse_from_rfc3339("2026-12-04T00:00:00Z")
            .unwrap()
            .with_timezone(&Utc)
            + Duration::hours(hour)
            + Duration::minutes(minute)
    }

    #[test]
    fn the_first_free_hour_is_whole_and_free_all_through() {
        let segments = [
            // Free for 50 minutes only: no whole hour fits.
            (at(10, 0), at(11, 50), 1),
            (at(11, 50), at(15, 0), 0),
            (at(15, 0), at(40, 0), 2),
        ];
        assert_eq!(first_free_hour(&segments, at(10, 10)), Some(at(15, 0)));
        // From 10:00 sharp the first segment's 10:00–11:00 fits.
        assert_eq!(first_free_hour(&segments, at(10, 0)), Some(at(10, 0)));
        assert_eq!(first_free_hour(&segments[1..2], at(10, 0)), None);
        // A GPU free all along over two segments (one free, then two) is a free hour.
        let split = [(at(9, 0), at(10, 30), 1), (at(10, 30), at(12, 0), 2)];
        assert_eq!(first_free_hour(&split, at(9, 40)), Some(at(10, 0)));
    }

    #[test]
    fn the_strip_draws_each_segment_with_its_free_gpus() {
        let segments = [(at(0, 0), at(12, 0), 2), (at(12, 0), at(48, 0), 0)];
        let svg = availability_svg(&segments, at(0, 0), at(48, 0), 2);
        assert_eq!(svg.matches("<rect").count(), 2, "{svg}");
        assert!(
            svg.contains("data-free=\"2\" x=\"0.0\" y=\"0.0\" width=\"140.0\" height=\"40.0\""),
            "{svg}"
        );
        assert!(
            svg.contains("class=\"span full\" data-from=\"2026-12-04T12:00:00+00:00\""),
            "{svg}"
        );
        // A tick at each midnight inside the range.
        assert_eq!(svg.matches("class=\"tick\"").count(), 1, "{svg}");
    }
}
