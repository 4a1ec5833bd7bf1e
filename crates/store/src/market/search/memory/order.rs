//! The ordered sets search walks: one per order (price, measured throughput, price per
//! million tokens, energy per token), keyed by the sort value and the listing's id, as the database orders them.

use std::collections::BTreeMap;

use uuid::Uuid;

use crate::market::search::query::SortKey;

/// A sort value with a total order; `-0.0` is stored as `0.0`, as SQL compares them.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(super) struct Key(pub(super) f64);

impl Key {
    pub(super) fn new(value: f64) -> Self {
        Self(value + 0.0)
    }
}

impl Eq for Key {}

impl PartialOrd for Key {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Key {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        self.0.total_cmp(&other.0)
    }
}

/// Whether `sort` lists the highest first.
pub(super) fn descending(sort: SortKey) -> bool {
    matches!(sort, SortKey::TokS | SortKey::Reliability)
}

/// Where an order's listing is: its slot in [`Index::facts`], with what the filters most
/// searches name read without leaving the order's memory: its GPU model's and region's
/// fingerprints, its VRAM and GPUs, and whether it is verified.
#[derive(Debug, Clone, Copy)]
pub(super) struct At {
    pub(super) slot: u32,
    pub(super) model: u32,
    pub(super) region: u32,
    pub(super) vram_gb: i32,
    pub(super) gpu_count: i32,
    pub(super) verified: bool,
}

/// An order a search walks: `(sort value, listing id)`, ties by id.
pub(super) type Order = BTreeMap<(Key, Uuid), At>;

pub(super) fn change(order: &mut Order, key: Option<f64>, id: Uuid, at: Option<At>) {
    if let Some(key) = key {
        match at {
            Some(at) => order.insert((Key::new(key), id), at),
            None => order.remove(&(Key::new(key), id)),
        };
    }
}

/// The listings of one search shape in its orders by price, tok/s, price per Mtok and energy
/// per token. (The reliability order is the listing's own, shared by every shape:
/// [`Index::reliable`].)
#[derive(Debug, Default)]
pub(super) struct Orders(pub(super) [Order; 4]);

impl Orders {
    pub(super) fn change(&mut self, id: Uuid, keys: [Option<f64>; 4], at: Option<At>) {
        for (order, key) in self.0.iter_mut().zip(keys) {
            change(order, key, id, at);
        }
    }

    pub(super) fn get(&self, sort: SortKey) -> Option<&Order> {
        match sort {
            SortKey::Price => Some(&self.0[0]),
            SortKey::TokS => Some(&self.0[1]),
            SortKey::PricePerMtok => Some(&self.0[2]),
            SortKey::JPerToken => Some(&self.0[3]),
            SortKey::Reliability => None,
        }
    }
}
