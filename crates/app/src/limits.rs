//! Limits that keep one client from taking what others need: live event streams per client
//! address and per process. (Quotas on runs and pending bookings live with their use cases.)

use std::collections::HashMap;
use std::net::IpAddr;
use std::sync::{Arc, Mutex};

use crate::AppError;

/// `trusted_proxies` as configured: addresses or CIDR ranges, comma-separated.
pub(crate) fn parse_proxies(raw: &str) -> Result<Vec<ipnet::IpNet>, String> {
    raw.split(',')
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .map(|s| {
            s.parse::<ipnet::IpNet>()
                .or_else(|_| s.parse::<IpAddr>().map(ipnet::IpNet::from))
                .map_err(|_| format!("trusted_proxies: {s:?} is not an address or a CIDR range"))
        })
        .collect()
}

/// The client behind `peer`: the peer itself unless it is a trusted proxy; then the
/// right-most `X-Forwarded-For` entry that is not one (entries further left could be forged
/// by the client).
pub(crate) fn client_address(
    trusted: &[ipnet::IpNet],
    peer: IpAddr,
    forwarded_for: Option<&str>,
) -> IpAddr {
    let is_trusted = |ip: &IpAddr| trusted.iter().any(|net| net.contains(ip));
    if !is_trusted(&peer) {
        return peer;
    }
    forwarded_for
        .into_iter()
        .flat_map(|header| header.rsplit(','))
        .filter_map(|entry| entry.trim().parse::<IpAddr>().ok())
        .find(|ip| !is_trusted(ip))
        .unwrap_or(peer)
}

/// Live event streams open now, per client address and in all.
#[derive(Debug, Default)]
pub(crate) struct StreamSlots {
    open: Mutex<(HashMap<IpAddr, usize>, usize)>,
}

/// One open stream's place; given back when dropped (the client went away, or the stream
/// ended).
#[derive(Debug)]
pub struct StreamSlot {
    slots: Arc<StreamSlots>,
    client: IpAddr,
}

impl Drop for StreamSlot {
    fn drop(&mut self) {
        let mut open = self.slots.open.lock().unwrap_or_else(|e| e.into_inner());
        let (per_client, total) = &mut *open;
        if let Some(n) = per_client.get_mut(&self.client) {
            *n -= 1;
            if *n == 0 {
                per_client.remove(&self.client);
            }
        }
        *total = total.saturating_sub(1);
    }
}

impl StreamSlots {
    /// A place for one more stream of `client`, within `per_client` and `total`.
    pub(crate) fn take(
        self: &Arc<Self>,
        client: IpAddr,
        per_client: usize,
        total: usize,
    ) -> Result<StreamSlot, AppError> {
        let mut open = self.open.lock().unwrap_or_else(|e| e.into_inner());
        let (by_client, all) = &mut *open;
        let mine = by_client.get(&client).copied().unwrap_or(0);
        if mine >= per_client {
            return Err(AppError::RateLimited {
                what: format!(
                    "{mine} live event streams are open from this address (event_streams_per_client)"
                ),
                retry_after_secs: 5,
            });
        }
        if *all >= total {
            return Err(AppError::RateLimited {
                what: "this server has as many live event streams open as it takes \
                       (event_streams_total)"
                    .to_owned(),
                retry_after_secs: 5,
            });
        }
        *by_client.entry(client).or_default() += 1;
        *all += 1;
        Ok(StreamSlot {
            slots: Arc::clone(self),
            client,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn forwarded_for_counts_only_from_trusted_proxies() {
        let trusted = parse_proxies("10.0.0.0/8, 192.168.1.1").unwrap();
        let ip = |s: &str| s.parse::<IpAddr>().unwrap();
        // Not from a proxy: the header is whatever the client wrote.
        assert_eq!(
            client_address(&trusted, ip("8.8.8.8"), Some("1.2.3.4")),
            ip("8.8.8.8")
        );
        // Through two trusted proxies: the right-most untrusted entry.
        assert_eq!(
            client_address(
                &trusted,
                ip("10.1.1.1"),
                Some("6.6.6.6, 5.5.5.5, 192.168.1.1")
            ),
            ip("5.5.5.5")
        );
        assert_eq!(
            client_address(&trusted, ip("10.1.1.1"), None),
            ip("10.1.1.1")
        );
        assert!(parse_proxies("nonsense").is_err());
        assert!(parse_proxies("").unwrap().is_empty());
    }

    #[test]
    fn slots_are_capped_per_client_and_in_all_and_given_back() {
        let slots = Arc::new(StreamSlots::default());
        let a: IpAddr = "10.0.0.1".parse().unwrap();
        let b: IpAddr = "10.0.0.2".parse().unwrap();
        let first = slots.take(a, 2, 3).unwrap();
        let _second = slots.take(a, 2, 3).unwrap();
        assert!(matches!(
            slots.take(a, 2, 3),
            Err(AppError::RateLimited { .. })
        ));
        let _third = slots.take(b, 2, 3).unwrap();
        assert!(slots.take(b, 2, 3).is_err(), "the process is full");
        drop(first);
        assert!(
            slots.take(a, 2, 3).is_ok(),
            "a closed stream gives its place back"
        );
    }
}
