//! Which listings name the same engine: its origin (scheme, host and port), below every use
//! case that counts an engine's streams or its direct access.

use uuid::Uuid;

/// The key the gateway counts an engine's streams under: its origin (scheme, host and port),
/// so that every listing naming the same engine counts together — a provider listing one
/// engine twice does not halve the load its requests are held to.
pub fn engine_key(base_url: &str) -> Uuid {
    use sha2::Digest;
    let origin = url::Url::parse(base_url)
        .ok()
        .map(|url| url.origin())
        .filter(url::Origin::is_tuple)
        .map_or_else(|| base_url.to_owned(), |o| o.ascii_serialization());
    let digest = sha2::Sha256::digest(origin.as_bytes());
    let mut key = [0u8; 16];
    key.copy_from_slice(&digest[..16]);
    Uuid::from_bytes(key)
}

/// The host of an engine address (empty when it has none).
pub fn engine_host(base_url: &str) -> String {
    url::Url::parse(base_url)
        .ok()
        .and_then(|u| u.host_str().map(str::to_owned))
        .unwrap_or_default()
}
