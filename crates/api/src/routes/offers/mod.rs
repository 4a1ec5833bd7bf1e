//! Offers at a service-level objective, booking the cheapest plan that meets it, and the
//! capacity planner.

pub mod book;
pub mod planner;
pub mod search;
