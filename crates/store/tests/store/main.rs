//! Store integration tests, on both backends: migrations and the repositories' guarantees.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod bookings;
mod migrations;
mod writers;
