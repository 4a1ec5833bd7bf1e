//! A listing's specification as a provider states it, validated field by field.

use chrono::{DateTime, Utc};

use crate::money::{Currency, Money};
use crate::{ValidationError, bounded_text};

/// An engine's API key (or, on its way to and from the database, its sealed form): never
/// printed — `{:?}` shows `EngineKey(..)`.
#[derive(Clone)]
pub struct EngineKey(secrecy::SecretString);

impl EngineKey {
    pub fn new(key: String) -> Self {
        Self(secrecy::SecretString::from(key))
    }

    /// The key, for the one call that sends (or seals) it.
    pub fn expose(&self) -> &str {
        secrecy::ExposeSecret::expose_secret(&self.0)
    }
}

impl PartialEq for EngineKey {
    fn eq(&self, other: &Self) -> bool {
        self.expose() == other.expose()
    }
}

impl Eq for EngineKey {}

impl std::fmt::Debug for EngineKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("EngineKey(..)")
    }
}

/// What a provider claims about a machine. Every field has been checked.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ListingSpec {
    pub title: String,
    pub gpu_model: String,
    pub gpu_count: i32,
    pub vram_gb: i32,
    pub cpu_model: String,
    pub ram_gb: i32,
    pub region: String,
    /// Price per GPU-hour.
    pub price: Money,
    /// The lowest bid per GPU-hour it takes for an interruptible booking (`None`: none).
    pub min_bid: Option<Money>,
    pub engine_base_url: String,
    pub engine_model: String,
    /// The engine the provider says it runs (`engine.name`, one of [`ENGINE_NAMES`]): a
    /// verification whose engine speaks another dialect is refused.
    pub engine_name: Option<String>,
    /// The bearer token the engine wants, if any. Stored (sealed); never shown again.
    pub engine_api_key: Option<EngineKey>,
    /// When the machine may be booked: `[from, until)`, either end open when absent.
    pub available_from: Option<DateTime<Utc>>,
    pub available_until: Option<DateTime<Utc>>,
    /// How a renter reaches the machine.
    pub ssh: Option<Ssh>,
    pub https_url: Option<String>,
    /// The catalog entries of the claimed GPU and model (ids of `GET /v1/hardware` and
    /// `GET /v1/models`): with both, verification checks the figures against physics.
    pub catalog_gpu: Option<String>,
    pub catalog_model: Option<String>,
    /// The guaranteed share of the verified per-stream speed, in basis points (8000: 0.8).
    pub guarantee_min_bp: Option<i32>,
    /// What it offers to bookings that ask for a container.
    pub containers: Option<crate::container::ContainerAccess>,
}

/// SSH access to a machine.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Ssh {
    pub host: String,
    pub port: i32,
    pub user: String,
}

/// SSH access as received.
#[derive(Debug, Clone, Copy)]
pub struct SshInput<'a> {
    pub host: &'a str,
    pub port: i64,
    pub user: &'a str,
}

/// The fields as received, before checking.
#[derive(Debug, Clone)]
pub struct ListingInput<'a> {
    pub title: &'a str,
    pub gpu_model: &'a str,
    pub gpu_count: i64,
    pub vram_gb: i64,
    pub cpu_model: &'a str,
    pub ram_gb: i64,
    pub region: &'a str,
    pub price_per_gpu_hour: i64,
    /// `price.min_bid_per_gpu_hour`: the lowest bid it takes for an interruptible booking.
    pub min_bid_per_gpu_hour: Option<i64>,
    pub currency: &'a str,
    pub engine_base_url: &'a str,
    pub engine_model: &'a str,
    pub engine_name: Option<&'a str>,
    pub engine_api_key: Option<&'a str>,
    pub available_from: Option<DateTime<Utc>>,
    pub available_until: Option<DateTime<Utc>>,
    pub ssh: Option<SshInput<'a>>,
    pub https_url: Option<&'a str>,
    pub catalog_gpu: Option<&'a str>,
    pub catalog_model: Option<&'a str>,
    /// `guarantee.min_fraction`: the share of the verified speed the provider guarantees.
    pub guarantee_min_fraction: Option<f64>,
    /// `access.containers`.
    pub containers: Option<crate::container::ContainerAccess>,
}

fn within(field: &'static str, value: i64, min: i64, max: i64) -> Result<i32, ValidationError> {
    if value < min || value > max {
        return Err(ValidationError::new(
            field,
            format!("must be between {min} and {max}"),
        ));
    }
    i32::try_from(value).map_err(|_| ValidationError::new(field, "is out of range"))
}

impl ListingSpec {
    pub fn parse(input: &ListingInput<'_>) -> Result<Self, ValidationError> {
        let currency = Currency::parse("price.currency", input.currency)?;
        if input.price_per_gpu_hour <= 0 || input.price_per_gpu_hour > 100_000_000 {
            return Err(ValidationError::new(
                "price.amount_per_gpu_hour",
                format!(
                    "must be a positive whole number of {currency}'s minor units ({}) up to 100000000",
                    if currency.exponent() == 0 {
                        "whole units: it has no smaller one"
                    } else {
                        "cents"
                    }
                ),
            ));
        }
        if let Some(min) = input.min_bid_per_gpu_hour
            && (min <= 0 || min > input.price_per_gpu_hour)
        {
            return Err(ValidationError::new(
                "price.min_bid_per_gpu_hour",
                "must be a positive whole number of minor units, at most amount_per_gpu_hour (or null: no interruptible bookings)",
            ));
        }
        let base_url = input.engine_base_url.trim().trim_end_matches('/');
        let valid_url = (base_url.starts_with("http://") || base_url.starts_with("https://"))
            && base_url.len() > "https://".len()
            && !base_url.contains(char::is_whitespace);
        if !valid_url {
            return Err(ValidationError::new(
                "engine.base_url",
                "must be an http:// or https:// URL",
            ));
        }
        if let (Some(from), Some(until)) = (input.available_from, input.available_until)
            && until <= from
        {
            return Err(ValidationError::new(
                "availability.until",
                "must be after availability.from",
            ));
        }
        Ok(Self {
            title: bounded_text("title", input.title, 1, 200)?,
            gpu_model: bounded_text("hardware.gpu_model", input.gpu_model, 1, 100)?,
            gpu_count: within("hardware.gpu_count", input.gpu_count, 1, 64)?,
            vram_gb: within("hardware.vram_gb", input.vram_gb, 1, 4096)?,
            cpu_model: bounded_text("hardware.cpu_model", input.cpu_model, 1, 100)?,
            ram_gb: within("hardware.ram_gb", input.ram_gb, 1, 1_048_576)?,
            region: bounded_text("region", input.region, 1, 64)?,
            price: Money::new(input.price_per_gpu_hour, currency),
            min_bid: input
                .min_bid_per_gpu_hour
                .map(|min| Money::new(min, currency)),
            engine_base_url: base_url.to_owned(),
            engine_model: bounded_text("engine.model", input.engine_model, 1, 200)?,
            engine_name: input
                .engine_name
                .map(|name| engine_name("engine.name", name))
                .transpose()?,
            engine_api_key: input
                .engine_api_key
                .map(engine_api_key)
                .transpose()?
                .map(EngineKey::new),
            available_from: input.available_from,
            available_until: input.available_until,
            ssh: input.ssh.as_ref().map(ssh).transpose()?,
            https_url: input.https_url.map(https_url).transpose()?,
            catalog_gpu: input
                .catalog_gpu
                .map(|id| catalog_id("catalog.gpu", id, |c, id| c.gpu(id).is_some()))
                .transpose()?,
            catalog_model: input
                .catalog_model
                .map(|id| catalog_id("catalog.model", id, |c, id| c.model(id).is_some()))
                .transpose()?,
            guarantee_min_bp: input.guarantee_min_fraction.map(guarantee_bp).transpose()?,
            containers: input
                .containers
                .clone()
                .map(|c| c.check().map(|()| c))
                .transpose()?,
        })
    }
}

/// The engines the benchmark standard reads, by the name reports give them
/// (`engine.name`); the harness's dialects (`bench::engine::Dialect`), which a test keeps
/// equal.
pub const ENGINE_NAMES: [&str; 4] = ["vllm", "llamacpp", "sglang", "tgi"];

/// The engine of this name, when the standard reads it.
pub fn known_engine(name: &str) -> Option<&'static str> {
    ENGINE_NAMES.into_iter().find(|known| *known == name)
}

/// An engine's name, one of [`ENGINE_NAMES`] (422 naming `field` otherwise).
pub fn engine_name(field: &'static str, name: &str) -> Result<String, ValidationError> {
    known_engine(name).map(str::to_owned).ok_or_else(|| {
        ValidationError::new(field, format!("must be one of {}", ENGINE_NAMES.join(", ")))
    })
}

/// A guaranteed fraction in basis points: more than 0, at most 1, to four decimals.
fn guarantee_bp(fraction: f64) -> Result<i32, ValidationError> {
    if !(fraction.is_finite() && fraction > 0.0 && fraction <= 1.0) {
        return Err(ValidationError::new(
            "guarantee.min_fraction",
            "must be a number above 0 and at most 1 (0.8: 80 % of the verified speed)",
        ));
    }
    Ok(((fraction * 10_000.0).round() as i32).max(1))
}

/// A catalog id that names an entry of the committed catalogs (422 naming `field`).
pub fn catalog_id(
    field: &'static str,
    id: &str,
    known: impl Fn(&catalog::Catalog, &str) -> bool,
) -> Result<String, ValidationError> {
    let catalogs =
        catalog::Catalog::get().map_err(|e| ValidationError::new(field, e.to_string()))?;
    if known(catalogs, id) {
        Ok(id.to_owned())
    } else {
        let listing = if field == "catalog.gpu" {
            "GET /v1/hardware"
        } else {
            "GET /v1/models"
        };
        Err(ValidationError::new(
            field,
            format!("is not a catalog id (see {listing})"),
        ))
    }
}

/// Whether `[starts_at, ends_at)` lies inside the window `[from, until)` (open ends when
/// absent).
pub fn within_window(
    from: Option<DateTime<Utc>>,
    until: Option<DateTime<Utc>>,
    starts_at: DateTime<Utc>,
    ends_at: DateTime<Utc>,
) -> bool {
    from.is_none_or(|from| starts_at >= from) && until.is_none_or(|until| ends_at <= until)
}

fn engine_api_key(raw: &str) -> Result<String, ValidationError> {
    let key = raw.trim();
    if key.is_empty() || key.len() > 512 || key.chars().any(|c| c.is_whitespace() || c.is_control())
    {
        return Err(ValidationError::new(
            "engine.api_key",
            "must be 1 to 512 characters without spaces",
        ));
    }
    Ok(key.to_owned())
}

fn ssh(input: &SshInput<'_>) -> Result<Ssh, ValidationError> {
    let host = input.host.trim();
    let host_ok = !host.is_empty()
        && host.len() <= 253
        && host
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '-' | ':' | '[' | ']'));
    if !host_ok {
        return Err(ValidationError::new(
            "access.ssh.host",
            "must be a host name or an IP address",
        ));
    }
    let port = within("access.ssh.port", input.port, 1, 65_535)?;
    let user = input.user.trim();
    let user_ok = !user.is_empty()
        && user.len() <= 32
        && user.chars().enumerate().all(|(i, c)| {
            c.is_ascii_lowercase() || c == '_' || (i > 0 && (c.is_ascii_digit() || c == '-'))
        });
    if !user_ok {
        return Err(ValidationError::new(
            "access.ssh.user",
            "must be a POSIX user name (lowercase letters, digits, _ and -, at most 32)",
        ));
    }
    Ok(Ssh {
        host: host.to_owned(),
        port,
        user: user.to_owned(),
    })
}

fn https_url(raw: &str) -> Result<String, ValidationError> {
    let url = raw.trim();
    if !url.starts_with("https://")
        || url.len() <= "https://".len()
        || url.len() > 2000
        || url.contains(char::is_whitespace)
    {
        return Err(ValidationError::new(
            "access.https_url",
            "must be an https:// URL",
        ));
    }
    Ok(url.to_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn input() -> ListingInput<'static> {
        ListingInput {
            title: "RTX 3060 in Berlin",
            gpu_model: "NVIDIA GeForce RTX 3060",
            gpu_count: 1,
            vram_gb: 12,
            cpu_model: "Xeon E5-2680 v4",
            ram_gb: 32,
            region: "eu-central",
            price_per_gpu_hour: 150,
            min_bid_per_gpu_hour: None,
            currency: "eur",
            engine_base_url: "http://10.0.0.5:8000/",
            engine_model: "bench",
            engine_name: None,
            engine_api_key: None,
            available_from: None,
            available_until: None,
            ssh: Some(SshInput {
                host: "gpu1.example.com",
                port: 22,
                user: "renter",
            }),
            https_url: None,
            catalog_gpu: Some("rtx-3060-12gb"),
            catalog_model: None,
            guarantee_min_fraction: None,
            containers: None,
        }
    }

    #[test]
    fn a_guarantee_is_a_fraction_kept_in_basis_points() {
        let with = |f: f64| {
            ListingSpec::parse(&ListingInput {
                guarantee_min_fraction: Some(f),
                ..input()
            })
        };
        assert_eq!(with(0.8).unwrap().guarantee_min_bp, Some(8000));
        assert_eq!(with(1.0).unwrap().guarantee_min_bp, Some(10_000));
        for bad in [0.0, -0.5, 1.01, f64::NAN, f64::INFINITY] {
            assert_eq!(with(bad).unwrap_err().field, "guarantee.min_fraction");
        }
        assert_eq!(ListingSpec::parse(&input()).unwrap().guarantee_min_bp, None);
    }

    #[test]
    fn an_engine_key_is_never_printed() {
        let spec = ListingSpec::parse(&ListingInput {
            engine_name: None,
            engine_api_key: Some("sk-do-not-print-me"),
            ..input()
        })
        .unwrap();
        assert_eq!(
            spec.engine_api_key.as_ref().unwrap().expose(),
            "sk-do-not-print-me"
        );
        let shown = format!("{spec:?}");
        assert!(!shown.contains("sk-do-not-print-me"), "{shown}");
        assert!(shown.contains("EngineKey(..)"));
    }

    #[test]
    fn a_good_listing_is_normalised() {
        let spec = ListingSpec::parse(&input()).unwrap();
        assert_eq!(spec.price, Money::new(150, Currency::Eur));
        assert_eq!(spec.engine_base_url, "http://10.0.0.5:8000");
        assert_eq!(spec.ssh.unwrap().port, 22);
    }

    #[test]
    fn windows_are_half_open_with_open_ends() {
        let t = |h: i64| DateTime::from_timestamp(1_900_000_000 + h * 3600, 0).unwrap();
        assert!(within_window(None, None, t(0), t(1)));
        assert!(within_window(Some(t(0)), Some(t(2)), t(0), t(2)));
        assert!(!within_window(Some(t(1)), None, t(0), t(2)));
        assert!(!within_window(None, Some(t(1)), t(0), t(2)));
    }

    #[test]
    fn each_bad_field_is_named() {
        let cases: Vec<(ListingInput<'static>, &str)> = vec![
            (
                ListingInput {
                    gpu_count: 0,
                    ..input()
                },
                "hardware.gpu_count",
            ),
            (
                ListingInput {
                    vram_gb: -1,
                    ..input()
                },
                "hardware.vram_gb",
            ),
            (
                ListingInput {
                    price_per_gpu_hour: 0,
                    ..input()
                },
                "price.amount_per_gpu_hour",
            ),
            (
                ListingInput {
                    currency: "XYZ",
                    ..input()
                },
                "price.currency",
            ),
            (
                ListingInput {
                    engine_base_url: "ftp://x",
                    ..input()
                },
                "engine.base_url",
            ),
            (
                ListingInput {
                    catalog_gpu: Some("rtx-9999"),
                    ..input()
                },
                "catalog.gpu",
            ),
            (
                ListingInput {
                    catalog_model: Some("no-such-model"),
                    ..input()
                },
                "catalog.model",
            ),
            (
                ListingInput {
                    title: " ",
                    ..input()
                },
                "title",
            ),
            (
                ListingInput {
                    engine_model: "",
                    ..input()
                },
                "engine.model",
            ),
        ];
        let now = chrono::Utc::now();
        let more: Vec<(ListingInput<'static>, &str)> = vec![
            (
                ListingInput {
                    available_from: Some(now),
                    available_until: Some(now),
                    ..input()
                },
                "availability.until",
            ),
            (
                ListingInput {
                    ssh: Some(SshInput {
                        host: "a b",
                        port: 22,
                        user: "x",
                    }),
                    ..input()
                },
                "access.ssh.host",
            ),
            (
                ListingInput {
                    ssh: Some(SshInput {
                        host: "h",
                        port: 70_000,
                        user: "x",
                    }),
                    ..input()
                },
                "access.ssh.port",
            ),
            (
                ListingInput {
                    ssh: Some(SshInput {
                        host: "h",
                        port: 22,
                        user: "Root;rm",
                    }),
                    ..input()
                },
                "access.ssh.user",
            ),
            (
                ListingInput {
                    https_url: Some("http://plain"),
                    ..input()
                },
                "access.https_url",
            ),
            (
                ListingInput {
                    engine_name: None,
                    engine_api_key: Some("two words"),
                    ..input()
                },
                "engine.api_key",
            ),
        ];
        for (bad, field) in cases.into_iter().chain(more) {
            assert_eq!(ListingSpec::parse(&bad).unwrap_err().field, field);
        }
    }
}
