//! sea-orm entities, one per table. Only this crate sees them: repositories hand out records.

pub mod api_keys;
pub mod memberships;
pub mod orgs;
pub mod refresh_tokens;
pub mod server_secrets;
pub mod users;
