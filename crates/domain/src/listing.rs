//! A listing's specification as a provider states it, validated field by field.

use crate::{ValidationError, bounded_text};

/// Currencies a price may be in (ISO 4217 codes with two minor-unit digits).
pub const CURRENCIES: &[&str] = &[
    "USD", "EUR", "GBP", "CHF", "CAD", "AUD", "JPY", "SEK", "NOK", "DKK",
];

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
    /// Price per GPU-hour in minor units of `currency`.
    pub price_per_gpu_hour: i64,
    pub currency: String,
    pub engine_base_url: String,
    pub engine_model: String,
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
    pub currency: &'a str,
    pub engine_base_url: &'a str,
    pub engine_model: &'a str,
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
        let currency = input.currency.trim().to_ascii_uppercase();
        if !CURRENCIES.contains(&currency.as_str()) {
            return Err(ValidationError::new(
                "price.currency",
                format!("must be one of {}", CURRENCIES.join(", ")),
            ));
        }
        if input.price_per_gpu_hour <= 0 || input.price_per_gpu_hour > 100_000_000 {
            return Err(ValidationError::new(
                "price.amount_per_gpu_hour",
                "must be a positive whole number of minor units (cents) up to 100000000",
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
        Ok(Self {
            title: bounded_text("title", input.title, 1, 200)?,
            gpu_model: bounded_text("hardware.gpu_model", input.gpu_model, 1, 100)?,
            gpu_count: within("hardware.gpu_count", input.gpu_count, 1, 64)?,
            vram_gb: within("hardware.vram_gb", input.vram_gb, 1, 4096)?,
            cpu_model: bounded_text("hardware.cpu_model", input.cpu_model, 1, 100)?,
            ram_gb: within("hardware.ram_gb", input.ram_gb, 1, 1_048_576)?,
            region: bounded_text("region", input.region, 1, 64)?,
            price_per_gpu_hour: input.price_per_gpu_hour,
            currency,
            engine_base_url: base_url.to_owned(),
            engine_model: bounded_text("engine.model", input.engine_model, 1, 200)?,
        })
    }
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
            currency: "eur",
            engine_base_url: "http://10.0.0.5:8000/",
            engine_model: "bench",
        }
    }

    #[test]
    fn a_good_listing_is_normalised() {
        let spec = ListingSpec::parse(&input()).unwrap();
        assert_eq!(spec.currency, "EUR");
        assert_eq!(spec.engine_base_url, "http://10.0.0.5:8000");
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
        for (bad, field) in cases {
            assert_eq!(ListingSpec::parse(&bad).unwrap_err().field, field);
        }
    }
}
