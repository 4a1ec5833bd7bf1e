//! Identity: accounts, sign-in, sessions, tokens, organisations and their mail.

pub(crate) mod accounts;
pub(crate) mod agents;
pub(crate) mod audit;
pub(crate) mod invitations;
pub(crate) mod orgs;
pub(crate) mod people;
pub(crate) mod secrets;
pub(crate) mod ssh_keys;
