//! The HTTP API, end to end: the real application on port 0 against a fresh database per
//! test, on SQLite and on PostgreSQL (every test runs on both), with Redis where it matters.

#![allow(clippy::unwrap_used, clippy::expect_used)]

#[macro_use]
mod helpers;
mod accounts;
mod agents;
mod api_keys;
mod audit;
mod backups;
mod badges;
mod billing;
mod bookings;
mod budgets;
mod catalog;
mod email;
mod engines;
mod gateway;
mod guarantees;
mod hostile;
mod http;
mod interruptible;
mod limits;
mod market_money;
mod marketplace;
mod offers;
mod orgs;
mod payments;
mod people;
mod preflight;
mod runs;
mod secrets;
mod ssh_keys;
mod stripe_faults;
mod tokens;
mod transparency;
mod uptime;
mod verification;
mod webhooks;
