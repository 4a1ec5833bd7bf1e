//! Where the platform may connect. Every server-side call to an address a provider typed in
//! (the verification worker's harness, and anything else that fetches from an engine) builds
//! its HTTP client here, so one place decides:
//!
//! - only `http://` and `https://` URLs with a host, no credentials, and no query or fragment
//!   (a base URL `https://victim.example/api?x=` would turn the path appended to it into a
//!   query string: the request would go where no verification went);
//! - no redirects, ever: a 3xx is an answer like any other, never a second destination;
//! - no loopback, private (RFC 1918), link-local, CGNAT, unique-local, multicast, broadcast,
//!   reserved or unspecified address, unless the operator allows private addresses
//!   (`engine_allow_private`): checked on the URL's literal address, and on every address a
//!   name resolves to **each time a connection is made** (DNS can change after a listing was
//!   checked, and a name can resolve to an internal address on purpose);
//! - no proxy from the environment: the address checked is the address connected to.
//!
//! `gpumarket bench` on the command line is the user's own tool and allows everything
//! ([`Policy::permissive`]).

use std::net::{IpAddr, Ipv4Addr, Ipv6Addr, SocketAddr};
use std::sync::Arc;
use std::time::Duration;

use reqwest::Url;

/// How long resolving a name may take before the connection is refused.
const RESOLVE_TIMEOUT: Duration = Duration::from_secs(5);

/// Which destinations are allowed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Policy {
    /// Whether internal addresses (loopback, private, link-local, ...) may be reached.
    pub allow_private: bool,
    /// Whether the rules bind at all (`false` only for the user's own command-line tool).
    pub enforced: bool,
}

impl Policy {
    /// The server's rules: public addresses only, unless `allow_private`.
    pub const fn guarded(allow_private: bool) -> Self {
        Self {
            allow_private,
            enforced: true,
        }
    }

    /// The command-line harness: the user measures whatever they point it at.
    pub const fn permissive() -> Self {
        Self {
            allow_private: true,
            enforced: false,
        }
    }
}

/// Why a destination is refused. The text names the rule, never anything received.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Refused {
    #[error("must be an http:// or https:// URL")]
    Scheme,
    #[error("must not contain credentials (put the engine's key in engine.api_key)")]
    Credentials,
    #[error("must not have a query or a fragment")]
    QueryOrFragment,
    #[error("must name a host")]
    NoHost,
    #[error("is not a valid URL")]
    Malformed,
    #[error("points at a {0} address, which the platform does not connect to")]
    Internal(&'static str),
    #[error("does not resolve to any address")]
    Unresolvable,
}

/// The kind of internal address `ip` is, or `None` for a public one. An IPv4 address
/// written as IPv6 (`::ffff:127.0.0.1`) is judged as the IPv4 address it is.
pub fn internal_kind(ip: IpAddr) -> Option<&'static str> {
    match ip {
        IpAddr::V4(v4) => v4_kind(v4),
        IpAddr::V6(v6) => match v6.to_ipv4_mapped() {
            Some(v4) => v4_kind(v4),
            None => v6_kind(v6),
        },
    }
}

fn v4_kind(ip: Ipv4Addr) -> Option<&'static str> {
    let [a, b, ..] = ip.octets();
    if ip.is_unspecified() || a == 0 {
        Some("unspecified")
    } else if ip.is_loopback() {
        Some("loopback")
    } else if ip.is_private() {
        Some("private")
    } else if ip.is_link_local() {
        Some("link-local")
    } else if a == 100 && (64..128).contains(&b) {
        Some("shared (CGNAT)")
    } else if a == 192 && b == 0 && ip.octets()[2] == 0 {
        Some("reserved")
    } else if a == 198 && (18..20).contains(&b) {
        Some("benchmarking")
    } else if ip.is_multicast() {
        Some("multicast")
    } else if ip.is_broadcast() || a >= 240 {
        Some("reserved")
    } else {
        None
    }
}

fn v6_kind(ip: Ipv6Addr) -> Option<&'static str> {
    let first = ip.segments()[0];
    if ip.is_unspecified() {
        Some("unspecified")
    } else if ip.is_loopback() {
        Some("loopback")
    } else if first & 0xfe00 == 0xfc00 {
        Some("unique-local")
    } else if first & 0xffc0 == 0xfe80 {
        Some("link-local")
    } else if ip.is_multicast() {
        Some("multicast")
    } else if first == 0x2001 && ip.segments()[1] == 0 {
        // Teredo tunnels to IPv4 hosts it does not name plainly.
        Some("Teredo")
    } else if let Some(v4) = embedded_v4(ip) {
        // NAT64, 6to4 and IPv4-compatible forms reach the IPv4 address they carry.
        v4_kind(v4)
    } else {
        None
    }
}

/// The IPv4 address an IPv6 address carries and reaches: NAT64 (`64:ff9b::/96`), 6to4
/// (`2002::/16`), or the deprecated IPv4-compatible form (`::a.b.c.d`).
fn embedded_v4(ip: Ipv6Addr) -> Option<Ipv4Addr> {
    let s = ip.segments();
    let v4 = |hi: u16, lo: u16| Ipv4Addr::from(((u32::from(hi)) << 16) | u32::from(lo));
    if s[..6] == [0x64, 0xff9b, 0, 0, 0, 0] {
        Some(v4(s[6], s[7]))
    } else if s[0] == 0x2002 {
        Some(v4(s[1], s[2]))
    } else {
        ip.to_ipv4()
    }
}

fn allowed(ip: IpAddr, policy: Policy) -> Result<(), Refused> {
    if !policy.enforced || policy.allow_private {
        return Ok(());
    }
    match internal_kind(ip) {
        Some(kind) => Err(Refused::Internal(kind)),
        None => Ok(()),
    }
}

/// Checks a URL's shape and, when its host is an address, that address. Names are checked
/// when they are resolved ([`check_resolved`], and on every connection).
pub fn check_url(raw: &str, policy: Policy) -> Result<Url, Refused> {
    let url = Url::parse(raw.trim()).map_err(|_| Refused::Malformed)?;
    if !matches!(url.scheme(), "http" | "https") {
        return Err(Refused::Scheme);
    }
    if policy.enforced && (!url.username().is_empty() || url.password().is_some()) {
        return Err(Refused::Credentials);
    }
    if policy.enforced && (url.query().is_some() || url.fragment().is_some()) {
        return Err(Refused::QueryOrFragment);
    }
    match url.host() {
        None => Err(Refused::NoHost),
        Some(url::Host::Ipv4(ip)) => allowed(IpAddr::V4(ip), policy).map(|()| url),
        Some(url::Host::Ipv6(ip)) => allowed(IpAddr::V6(ip), policy).map(|()| url),
        Some(url::Host::Domain(_)) => Ok(url),
    }
}

/// The address of `path` (which starts with `/`) on the engine at `base`: both checked, the
/// path appended to the base's own path.
pub fn engine_url(base: &str, path: &str, policy: Policy) -> Result<Url, Refused> {
    check_url(base, policy)?;
    check_url(
        &format!("{}{path}", base.trim().trim_end_matches('/')),
        policy,
    )
}

/// Installs rustls' ring crypto provider for the process (once; later calls do nothing).
/// Every HTTP client needs it for `https://` destinations.
pub fn install_crypto_provider() {
    let _ = rustls::crypto::ring::default_provider().install_default();
}

/// [`check_url`], then resolves a name and checks every address it gives (all must be
/// allowed: a name that mixes a public and an internal address is refused).
pub async fn check_resolved(raw: &str, policy: Policy) -> Result<Url, Refused> {
    let url = check_url(raw, policy)?;
    if let Some(url::Host::Domain(name)) = url.host()
        && policy.enforced
        && !policy.allow_private
    {
        let port = url.port_or_known_default().unwrap_or(80);
        resolve(name, port, policy).await?;
    }
    Ok(url)
}

async fn resolve(name: &str, port: u16, policy: Policy) -> Result<Vec<SocketAddr>, Refused> {
    let lookup = tokio::net::lookup_host((name, port));
    let addrs: Vec<SocketAddr> = tokio::time::timeout(RESOLVE_TIMEOUT, lookup)
        .await
        .map_err(|_| Refused::Unresolvable)?
        .map_err(|_| Refused::Unresolvable)?
        .collect();
    if addrs.is_empty() {
        return Err(Refused::Unresolvable);
    }
    for addr in &addrs {
        allowed(addr.ip(), policy)?;
    }
    Ok(addrs)
}

/// The resolver every guarded client uses: the connection goes to an address this checked.
struct GuardedResolver {
    policy: Policy,
}

impl reqwest::dns::Resolve for GuardedResolver {
    fn resolve(&self, name: reqwest::dns::Name) -> reqwest::dns::Resolving {
        let policy = self.policy;
        let name = name.as_str().to_owned();
        Box::pin(async move {
            // Port 0: reqwest puts the URL's port in.
            let addrs = resolve(&name, 0, policy)
                .await
                .map_err(|e| Box::new(e) as Box<dyn std::error::Error + Send + Sync>)?;
            Ok(Box::new(addrs.into_iter()) as reqwest::dns::Addrs)
        })
    }
}

/// An HTTP client builder under `policy`: no redirects; when enforced, no proxy and every
/// name resolved through the policy.
pub fn client_builder(policy: Policy) -> reqwest::ClientBuilder {
    install_crypto_provider();
    let builder = reqwest::Client::builder().redirect(reqwest::redirect::Policy::none());
    if !policy.enforced {
        return builder;
    }
    builder
        .no_proxy()
        .dns_resolver(Arc::new(GuardedResolver { policy }))
}

#[cfg(test)]
mod tests {
    use super::*;

    const STRICT: Policy = Policy::guarded(false);

    #[test]
    fn internal_addresses_are_named() {
        for (raw, kind) in [
            ("127.0.0.1", "loopback"),
            ("10.0.0.5", "private"),
            ("172.16.0.1", "private"),
            ("192.168.1.1", "private"),
            ("169.254.169.254", "link-local"),
            ("100.64.0.1", "shared (CGNAT)"),
            ("0.0.0.0", "unspecified"),
            ("224.0.0.1", "multicast"),
            ("255.255.255.255", "reserved"),
            ("::1", "loopback"),
            ("::", "unspecified"),
            ("fd00::1", "unique-local"),
            ("fe80::1", "link-local"),
            ("ff02::1", "multicast"),
            ("::ffff:127.0.0.1", "loopback"),
            ("::ffff:169.254.169.254", "link-local"),
            ("64:ff9b::a9fe:a9fe", "link-local"),
            ("64:ff9b::10.0.0.1", "private"),
            ("2002:7f00:1::", "loopback"),
            ("2001:0:4136:e378::1", "Teredo"),
            ("192.0.0.8", "reserved"),
            ("198.18.0.1", "benchmarking"),
        ] {
            let ip: IpAddr = raw.parse().unwrap();
            assert_eq!(internal_kind(ip), Some(kind), "{raw}");
        }
        for public in ["8.8.8.8", "100.128.0.1", "172.32.0.1", "2001:4860::8888"] {
            assert_eq!(internal_kind(public.parse().unwrap()), None, "{public}");
        }
    }

    #[test]
    fn urls_are_checked_for_shape_and_literal_addresses() {
        assert!(check_url("https://engine.example.com:8000/v", STRICT).is_ok());
        assert!(check_url("http://8.8.8.8:8000", STRICT).is_ok());
        assert_eq!(
            check_url("http://10.0.0.5:8000", STRICT),
            Err(Refused::Internal("private"))
        );
        assert_eq!(
            check_url("http://[::1]:8000", STRICT),
            Err(Refused::Internal("loopback"))
        );
        // Decimal and short forms are normalised by the URL parser first.
        assert_eq!(
            check_url("http://2130706433/", STRICT),
            Err(Refused::Internal("loopback"))
        );
        assert_eq!(
            check_url("http://user:pw@8.8.8.8", STRICT),
            Err(Refused::Credentials)
        );
        assert_eq!(check_url("ftp://8.8.8.8", STRICT), Err(Refused::Scheme));
        for sneaky in [
            "https://8.8.8.8/api?x=",
            "https://8.8.8.8/api#x",
            "https://8.8.8.8/?",
        ] {
            assert_eq!(
                check_url(sneaky, STRICT),
                Err(Refused::QueryOrFragment),
                "{sneaky}"
            );
            assert_eq!(
                engine_url(sneaky, "/v1/models", STRICT),
                Err(Refused::QueryOrFragment)
            );
        }
        assert_eq!(
            engine_url("https://8.8.8.8:8000/base/", "/v1/models", STRICT)
                .unwrap()
                .as_str(),
            "https://8.8.8.8:8000/base/v1/models"
        );
        assert_eq!(check_url("not a url", STRICT), Err(Refused::Malformed));
        assert!(check_url("http://10.0.0.5:8000", Policy::guarded(true)).is_ok());
        assert!(check_url("http://127.0.0.1:8000", Policy::permissive()).is_ok());
        assert!(check_url("http://u:p@127.0.0.1", Policy::permissive()).is_ok());
    }

    #[tokio::test]
    async fn names_are_checked_on_what_they_resolve_to() {
        assert_eq!(
            check_resolved("http://localhost:8000", STRICT).await,
            Err(Refused::Internal("loopback"))
        );
        assert!(
            check_resolved("http://localhost:8000", Policy::guarded(true))
                .await
                .is_ok()
        );
    }
}
