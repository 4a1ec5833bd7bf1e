//! The routes, one file per action. A handler parses, authorizes (through its extractors),
//! calls one use case in `app`, and maps the result — nothing else.

pub mod api_keys;
pub mod auth;
pub mod bookings;
pub mod budget;
pub mod catalog;
pub mod gateway;
pub mod health;
pub mod listings;
pub mod market;
pub mod me;
pub mod offers;
pub mod orgs;
pub mod payments;
pub mod quote;
pub mod reports;
pub mod runs;
pub mod ssh_keys;
pub mod transparency;
pub mod verifications;
pub mod webhooks;

use utoipa_actix_web::scope;
use utoipa_actix_web::service_config::ServiceConfig;

/// Registers every route; the OpenAPI document is collected from the same registrations.
pub fn configure(cfg: &mut ServiceConfig) {
    cfg.service(health::healthz)
        .service(health::readyz)
        .service(health::metrics)
        .service(
            scope::scope("/v1")
                // Search first, the busiest route: actix tries routes in order, and each
                // pattern with a path parameter tried before it costs a regular-expression
                // match (2 % of a search's instructions when it came after thirty routes).
                .service(listings::search::search)
                .service(offers::search::search)
                .service(auth::register::register)
                .service(auth::login::login)
                .service(auth::refresh::refresh)
                .service(auth::sessions::logout)
                .service(auth::sessions::password)
                .service(auth::sessions::revoke_all)
                .service(auth::email::confirm)
                .service(auth::email::resend)
                .service(auth::email::reset)
                .service(auth::email::reset_confirm)
                .service(me::me)
                .service(me::export)
                .service(me::delete_me)
                .service(ssh_keys::create::create)
                .service(ssh_keys::list::list)
                .service(ssh_keys::delete::delete)
                .service(api_keys::create::create)
                .service(api_keys::list::list)
                .service(api_keys::delete::delete)
                .service(orgs::create::create)
                .service(orgs::list::list)
                .service(orgs::directory::directory)
                .service(orgs::get::get)
                .service(orgs::members::add_member)
                .service(orgs::members::invite)
                .service(orgs::members::accept)
                .service(orgs::members::set_role)
                .service(orgs::members::remove)
                .service(orgs::api_keys::create)
                .service(orgs::api_keys::list)
                .service(orgs::api_keys::revoke)
                .service(orgs::audit::audit)
                .service(orgs::billing::checkout)
                .service(orgs::billing::portal)
                .service(orgs::billing::billing)
                .service(reports::org_report::org_report)
                .service(offers::book::book)
                .service(offers::planner::planner)
                .service(listings::create::create)
                .service(listings::get::get)
                .service(listings::update::update)
                .service(listings::delete::delete)
                .service(listings::availability::availability)
                .service(listings::uptime::uptime)
                .service(listings::agent::put_facts)
                .service(listings::agent::get_agent)
                .service(listings::agent::forget)
                .service(listings::preflight::request)
                .service(listings::preflight::latest)
                .service(listings::agent::get_desired)
                .service(listings::agent::post_heartbeat)
                .service(listings::agent::post_telemetry)
                .service(listings::agent::post_logs)
                .service(bookings::logs::logs)
                .service(listings::maintenance_windows::create)
                .service(listings::maintenance_windows::list)
                .service(listings::maintenance_windows::remove)
                .service(bookings::list::of_listing)
                .service(listings::reports::reports)
                .service(listings::verify::verify)
                .service(listings::verification::verification)
                .service(verifications::get::get)
                .service(verifications::events::events)
                .service(verifications::cancel::cancel)
                .service(reports::list::list)
                .service(reports::get::get)
                .service(reports::compare::compare)
                .service(reports::proof::proof)
                .service(reports::share::share)
                .service(reports::share::revoke)
                .service(reports::share::list)
                .service(transparency::checkpoint::checkpoint)
                .service(transparency::verifier_key::verifier_key)
                .service(transparency::consistency::consistency)
                .service(transparency::entries::entries)
                .service(transparency::status::status)
                .service(catalog::hardware::list)
                .service(catalog::hardware::get)
                .service(catalog::models::list)
                .service(catalog::models::get)
                .service(catalog::calculator::decode)
                .service(runs::submit::submit)
                .service(runs::list::list)
                .service(runs::get::get)
                .service(runs::withdraw::withdraw)
                .service(gateway::chat::chat)
                .service(gateway::completions::completions)
                .service(gateway::models::models)
                .service(gateway::models::version)
                .service(gateway::tokenize::tokenize)
                .service(gateway::metrics::metrics)
                .service(reports::matrix::csv)
                .service(reports::matrix::svg)
                .service(reports::signing_keys::signing_keys)
                .service(reports::leaderboard::leaderboard)
                .service(quote::quote)
                .service(market::history)
                .service(bookings::list::list)
                .service(bookings::create::create)
                .service(bookings::get::get)
                .service(bookings::cancel::cancel)
                .service(bookings::bid::raise)
                .service(bookings::access::access)
                .service(bookings::access::introspect)
                .service(bookings::usage::usage)
                .service(payments::onboarding)
                .service(payments::payouts)
                .service(payments::webhook)
                .service(payments::earnings)
                .service(payments::spend)
                .service(budget::put_budget)
                .service(budget::get_budget)
                .service(budget::delete_budget)
                .service(webhooks::mine::create)
                .service(webhooks::mine::list)
                .service(webhooks::mine::remove)
                .service(webhooks::mine::rotate)
                .service(webhooks::mine::test)
                .service(webhooks::mine::enable)
                .service(webhooks::mine::deliveries)
                .service(webhooks::mine::redeliver)
                .service(webhooks::org::create)
                .service(webhooks::org::list)
                .service(webhooks::org::remove)
                .service(webhooks::org::rotate)
                .service(webhooks::org::test)
                .service(webhooks::org::enable)
                .service(webhooks::org::deliveries)
                .service(webhooks::org::redeliver),
        );
}
