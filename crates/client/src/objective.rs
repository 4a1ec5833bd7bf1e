//! The objective language of `gpumarket offers`: a service-level objective in a few terms,
//! mapped to `GET /v1/offers`'s (and `POST /v1/offers/book`'s) parameters.
//!
//! ```text
//! model=qwen3-0.6b context=8k users=50 ttft<=2s itl<=100ms price<=3.00 usd
//! ```
//!
//! | term | parameter(s) |
//! |---|---|
//! | `model=NAME` | `model` (a catalog model's id, name or alias, or a served name) |
//! | `context=N` | `context` (tokens; `8k` = 8,192) |
//! | `users=N` | `users` |
//! | `ttft<=T` | `ttft_p99_ms` (`2s`, `1500ms`, or ms) |
//! | `itl<=T` | `itl_p99_ms` (`100ms`, `0.1s`, or ms) |
//! | `price<=X CUR` | `max_price_per_hour` (a whole machine, X in major units of CUR) and `currency` |
//! | `currency=CUR` | `currency` |
//! | `from=T` `until=T` | `available_from`, `available_until` (RFC 3339) |
//! | `reliability>=R` | `min_reliability` (the 30-day uptime: `0.99` or `99%`) |
//! | `failing` | `include_failing=true` |
//!
//! A term that does not parse is an error naming it; nothing is guessed.

use crate::query::{QueryError, Term, is_currency, minor_units, positive_integer, tokens};

/// An objective's parameters, as its terms set them.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Objective {
    pub model: Option<String>,
    pub context: Option<i64>,
    pub users: Option<i64>,
    pub ttft_p99_ms: Option<f64>,
    pub itl_p99_ms: Option<f64>,
    pub max_price_per_hour: Option<i64>,
    pub currency: Option<String>,
    pub available_from: Option<chrono::DateTime<chrono::Utc>>,
    pub available_until: Option<chrono::DateTime<chrono::Utc>>,
    pub min_reliability: Option<f64>,
    pub include_failing: bool,
}

impl Objective {
    /// Parses `model=m context=8k users=50 ttft<=2s itl<=100ms`. The model, context, users
    /// and both limits are required.
    pub fn parse(text: &str) -> Result<Self, QueryError> {
        let mut o = Objective::default();
        let words: Vec<&str> = text.split_whitespace().collect();
        let mut i = 0;
        while i < words.len() {
            let word = words[i];
            i += 1;
            if word == "failing" {
                o.include_failing = true;
                continue;
            }
            let term = Term::read(word, "expected FIELD=VALUE or FIELD<=VALUE, or `failing`")?;
            let (field, value) = (term.field, term.value);
            let error = |reason: String| term.error(reason);
            let only = |allowed: &str| term.only(allowed);
            match field {
                "model" => {
                    only("=")?;
                    o.model = Some(value.to_owned());
                }
                "context" => {
                    only("=")?;
                    o.context = Some(tokens(value).map_err(error)?);
                }
                "users" => {
                    only("=")?;
                    o.users = Some(positive_integer(value).map_err(error)?);
                }
                "ttft" => {
                    only("<=")?;
                    o.ttft_p99_ms = Some(milliseconds(value).map_err(error)?);
                }
                "itl" => {
                    only("<=")?;
                    o.itl_p99_ms = Some(milliseconds(value).map_err(error)?);
                }
                "currency" => {
                    only("=")?;
                    if !is_currency(value) {
                        return Err(error(format!("`{value}` is not a currency code")));
                    }
                    o.currency = Some(value.to_ascii_uppercase());
                }
                "price" => {
                    only("<=")?;
                    let (amount, currency) = match words.get(i) {
                        Some(next) if is_currency(next) => {
                            i += 1;
                            (value, next.to_ascii_uppercase())
                        }
                        _ => {
                            return Err(error(
                                "name the currency after the amount, e.g. `price<=3.00 usd`".into(),
                            ));
                        }
                    };
                    o.max_price_per_hour = Some(minor_units(amount, &currency).map_err(error)?);
                    o.currency = Some(currency);
                }
                "from" | "until" => {
                    term.set_interval(&mut o.available_from, &mut o.available_until)?;
                }
                "reliability" => {
                    only(">=")?;
                    o.min_reliability = Some(share(value).map_err(error)?);
                }
                _ => {
                    return Err(error(format!(
                        "unknown field `{field}` (known: model, context, users, ttft, itl, \
                         price, currency, from, until, reliability, failing)"
                    )));
                }
            }
        }
        for (missing, example) in [
            (o.model.is_none(), "model=NAME"),
            (o.context.is_none(), "context=8k"),
            (o.users.is_none(), "users=N"),
            (o.ttft_p99_ms.is_none(), "ttft<=2s"),
            (o.itl_p99_ms.is_none(), "itl<=100ms"),
        ] {
            if missing {
                return Err(QueryError {
                    term: text.trim().to_owned(),
                    reason: format!("an objective needs `{example}`"),
                });
            }
        }
        Ok(o)
    }
}

/// `0.99` or `99%`, as a share from 0 to 1.
fn share(value: &str) -> Result<f64, String> {
    let (number, scale) = match value.strip_suffix('%') {
        Some(percent) => (percent, 100.0),
        None => (value, 1.0),
    };
    number
        .parse::<f64>()
        .ok()
        .map(|n| n / scale)
        .filter(|n| (0.0..=1.0).contains(n))
        .ok_or_else(|| format!("`{value}` is not a share from 0 to 1 (or 0% to 100%)"))
}

/// `2s`, `0.1s`, `1500ms` or `1500` (ms), as milliseconds.
fn milliseconds(value: &str) -> Result<f64, String> {
    let (number, scale) = if let Some(ms) = value.strip_suffix("ms") {
        (ms, 1.0)
    } else if let Some(s) = value.strip_suffix('s') {
        (s, 1000.0)
    } else {
        (value, 1.0)
    };
    number
        .parse::<f64>()
        .ok()
        .map(|n| n * scale)
        .filter(|ms| ms.is_finite() && *ms > 0.0)
        .ok_or_else(|| format!("`{value}` is not a time such as 2s, 1500ms or 100"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_objective_maps_to_the_offers_parameters() {
        let o = Objective::parse(
            "model=qwen3-0.6b context=8k users=50 ttft<=2s itl<=100ms price<=3.00 usd failing",
        )
        .unwrap();
        assert_eq!(o.model.as_deref(), Some("qwen3-0.6b"));
        assert_eq!(o.context, Some(8192));
        assert_eq!(o.users, Some(50));
        assert_eq!(o.ttft_p99_ms, Some(2000.0));
        assert_eq!(o.itl_p99_ms, Some(100.0));
        assert_eq!(o.max_price_per_hour, Some(300));
        assert_eq!(o.currency.as_deref(), Some("USD"));
        assert!(o.include_failing);
        let steady =
            Objective::parse("model=m context=0 users=1 ttft<=1s itl<=50ms reliability>=99.5%")
                .unwrap();
        assert_eq!(steady.min_reliability, Some(0.995));
        assert!(
            Objective::parse("model=m context=0 users=1 ttft<=1s itl<=50ms reliability>=2")
                .is_err()
        );
        let plain = Objective::parse("model=m context=0 users=1 ttft<=1500 itl<=0.05s").unwrap();
        assert_eq!(
            (plain.ttft_p99_ms, plain.itl_p99_ms),
            (Some(1500.0), Some(50.0))
        );
    }

    #[test]
    fn a_bad_or_missing_term_is_named() {
        for (text, says) in [
            ("model=m context=8k users=1 ttft<=2s", "itl<=100ms"),
            ("context=8k users=1 ttft<=2s itl<=1", "model=NAME"),
            ("model=m context=8k users=0 ttft<=2s itl<=1", "at least 1"),
            (
                "model=m context=8k users=1 ttft>=2s itl<=1",
                "`ttft` takes `<=`",
            ),
            ("model=m context=8k users=1 ttft<=soon itl<=1", "not a time"),
            (
                "model=m context=8k users=1 ttft<=2s itl<=1 price<=3",
                "name the currency",
            ),
            (
                "model=m context=8k users=1 ttft<=2s itl<=1 speed=9",
                "unknown field",
            ),
        ] {
            let err = Objective::parse(text).unwrap_err();
            assert!(err.to_string().contains(says), "{text}: {err}");
        }
    }
}
