//! The database schema of gpumarket, as migrations that run on PostgreSQL and SQLite alike.
//!
//! One file per change, named `mYYYYMMDD_HHMMSS_what.rs` (the name is the migration's id);
//! a migration that has landed is never edited — a change is a new file.

pub use sea_orm_migration::prelude::*;

mod m20261129_000001_accounts;
mod m20261129_000002_verification;
mod m20261129_000003_bookings;
mod m20261129_000004_listing_search;
mod m20261129_000005_payments;
mod m20261201_000006_run_failure_code;
mod m20261201_000007_verification_lifecycle;
mod m20261201_000008_booking_cancellation;
mod m20261201_000009_one_open_run_per_listing;
mod m20261201_000010_invitations_and_org_keys;
mod m20261201_000011_verification_cost;
mod m20261201_000012_transparency_log;
mod m20261201_000013_listing_catalog;
mod m20261201_000014_community_runs;
mod m20261201_000015_org_billing;
mod m20261201_000016_private_reports;
mod m20261201_000017_gateway_requests;
mod m20261201_000018_log_backfill_check;
mod m20261201_000019_performance_guarantees;
mod m20261202_000020_gateway_judging;
mod m20261202_000021_accounts_and_limits;
mod m20261202_000022_community_cells;
mod m20261202_000023_email_verification;
mod m20261203_000024_offers;
mod m20261203_000025_liveness_and_maintenance;
mod m20261203_000026_uptime_statements;
mod m20261204_000027_webhooks;
mod m20261204_000028_search_change_feed;
mod m20261204_000029_report_catalog;
mod m20261205_000030_capacity_change_feed;
mod m20261206_000031_gateway_received;
mod m20261206_000032_direct_access;
mod m20261206_000033_window_interruptions;
mod m20261206_000034_webhook_fairness;
mod m20261206_000035_engine_names;
mod m20261206_000036_measured_engines;
mod m20261206_000037_community_engines;
mod m20261206_000038_ssh_keys;
mod m20261206_000039_agents;
mod m20261206_000040_agent_heartbeats;
mod m20261206_000041_hardware_confirmed;
mod m20261207_000042_report_hardware_confirmed;
mod m20261207_000043_preflights;
mod m20261207_000044_energy;
mod m20261207_000045_containers;
mod m20261207_000046_container_reports;
mod m20261207_000047_budgets;
mod m20261207_000048_stop_when_idle;
mod m20261207_000049_interruptible;
mod m20261207_000050_market_history;
mod m20261207_000051_bid_raises;
mod m20261207_000052_refund_part_ids;
mod m20261207_000053_people;
mod m20261207_000054_org_audit;
mod m20261208_000055_log_floor;

/// Every migration, oldest first.
#[derive(Debug)]
pub struct Migrator;

#[async_trait::async_trait]
impl MigratorTrait for Migrator {
    fn migrations() -> Vec<Box<dyn MigrationTrait>> {
        vec![
            Box::new(m20261129_000001_accounts::Migration),
            Box::new(m20261129_000002_verification::Migration),
            Box::new(m20261129_000003_bookings::Migration),
            Box::new(m20261129_000004_listing_search::Migration),
            Box::new(m20261129_000005_payments::Migration),
            Box::new(m20261201_000006_run_failure_code::Migration),
            Box::new(m20261201_000007_verification_lifecycle::Migration),
            Box::new(m20261201_000008_booking_cancellation::Migration),
            Box::new(m20261201_000009_one_open_run_per_listing::Migration),
            Box::new(m20261201_000010_invitations_and_org_keys::Migration),
            Box::new(m20261201_000011_verification_cost::Migration),
            Box::new(m20261201_000012_transparency_log::Migration),
            Box::new(m20261201_000013_listing_catalog::Migration),
            Box::new(m20261201_000014_community_runs::Migration),
            Box::new(m20261201_000015_org_billing::Migration),
            Box::new(m20261201_000016_private_reports::Migration),
            Box::new(m20261201_000017_gateway_requests::Migration),
            Box::new(m20261201_000018_log_backfill_check::Migration),
            Box::new(m20261201_000019_performance_guarantees::Migration),
            Box::new(m20261202_000020_gateway_judging::Migration),
            Box::new(m20261202_000021_accounts_and_limits::Migration),
            Box::new(m20261202_000022_community_cells::Migration),
            Box::new(m20261202_000023_email_verification::Migration),
            Box::new(m20261203_000024_offers::Migration),
            Box::new(m20261203_000025_liveness_and_maintenance::Migration),
            Box::new(m20261203_000026_uptime_statements::Migration),
            Box::new(m20261204_000027_webhooks::Migration),
            Box::new(m20261204_000028_search_change_feed::Migration),
            Box::new(m20261204_000029_report_catalog::Migration),
            Box::new(m20261205_000030_capacity_change_feed::Migration),
            Box::new(m20261206_000031_gateway_received::Migration),
            Box::new(m20261206_000032_direct_access::Migration),
            Box::new(m20261206_000033_window_interruptions::Migration),
            Box::new(m20261206_000034_webhook_fairness::Migration),
            Box::new(m20261206_000035_engine_names::Migration),
            Box::new(m20261206_000036_measured_engines::Migration),
            Box::new(m20261206_000037_community_engines::Migration),
            Box::new(m20261206_000038_ssh_keys::Migration),
            Box::new(m20261206_000039_agents::Migration),
            Box::new(m20261206_000040_agent_heartbeats::Migration),
            Box::new(m20261206_000041_hardware_confirmed::Migration),
            Box::new(m20261207_000042_report_hardware_confirmed::Migration),
            Box::new(m20261207_000043_preflights::Migration),
            Box::new(m20261207_000044_energy::Migration),
            Box::new(m20261207_000045_containers::Migration),
            Box::new(m20261207_000046_container_reports::Migration),
            Box::new(m20261207_000047_budgets::Migration),
            Box::new(m20261207_000048_stop_when_idle::Migration),
            Box::new(m20261207_000049_interruptible::Migration),
            Box::new(m20261207_000050_market_history::Migration),
            Box::new(m20261207_000051_bid_raises::Migration),
            Box::new(m20261207_000052_refund_part_ids::Migration),
            Box::new(m20261207_000053_people::Migration),
            Box::new(m20261207_000054_org_audit::Migration),
            Box::new(m20261208_000055_log_floor::Migration),
        ]
    }
}
