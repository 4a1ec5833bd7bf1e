//! Offers at a service-level objective, and booking the cheapest plan that meets it.

pub mod book;
pub mod search;
