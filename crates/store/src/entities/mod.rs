//! sea-orm entities, one per table. Only this crate sees them: repositories hand out records.

pub mod api_keys;
pub mod bookings;
pub mod invitations;
pub mod ledger_entries;
pub mod listing_cells;
pub mod listings;
pub mod memberships;
pub mod orgs;
pub mod payout_accounts;
pub mod refresh_tokens;
pub mod report_cells;
pub mod reports;
pub mod run_events;
pub mod runs;
pub mod server_secrets;
pub mod signing_keys;
pub mod stripe_events;
pub mod users;
pub mod verification_checks;
