//! The search query language of `gpumarket search`: a few space-separated terms that map to
//! `GET /v1/listings`'s parameters, so a renter writes what they want instead of a URL.
//!
//! ```text
//! gpu=rtx-3060-12gb price<=0.40 usd tok_s@16k/4>=100 verified region=eu-west
//! ```
//!
//! | term | parameter(s) |
//! |---|---|
//! | `gpu=ID` | `gpu` (a catalog id or one of its aliases, e.g. `rtx-3060-12gb`) |
//! | `vram>=N` | `min_vram_gb` (GB per GPU) |
//! | `price<=X CUR` | `max_price` (X in major units of CUR, sent in minor units) and `currency` |
//! | `tok_s@C/B>=N` | `min_total_tok_s=N` at `context=C`, `concurrency=B` (`16k` = 16,384 tokens) |
//! | `tok_s>=N` | `min_total_tok_s=N` at the listing's best measured cell |
//! | `verified` | `verified=true` |
//! | `region=R` | `region` |
//! | `gpus>=N` | `gpu_count` |
//! | `from=T` `until=T` | `available_from`, `available_until` (RFC 3339) |
//! | `sort=price\|tok_s\|price_per_mtok` | `sort` |
//!
//! A term that does not parse is an error naming it; nothing is guessed.

use std::fmt;

/// `GET /v1/listings`'s parameters, as a query sets them.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Search {
    pub gpu: Option<String>,
    pub min_vram_gb: Option<i64>,
    pub max_price: Option<i64>,
    pub currency: Option<String>,
    pub region: Option<String>,
    pub verified: Option<bool>,
    pub min_total_tok_s: Option<f64>,
    pub context: Option<i64>,
    pub concurrency: Option<i64>,
    pub gpu_count: Option<i64>,
    pub available_from: Option<chrono::DateTime<chrono::Utc>>,
    pub available_until: Option<chrono::DateTime<chrono::Utc>>,
    pub sort: Option<String>,
}

/// A term that does not parse: which one, and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct QueryError {
    /// The offending term as written.
    pub term: String,
    pub reason: String,
}

impl fmt::Display for QueryError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "in the query's term `{}`: {}", self.term, self.reason)
    }
}

impl std::error::Error for QueryError {}

/// ISO 4217 currencies with no minor unit (Stripe's zero-decimal list) and with three decimals.
const ZERO_DECIMAL: &[&str] = &[
    "BIF", "CLP", "DJF", "GNF", "JPY", "KMF", "KRW", "MGA", "PYG", "RWF", "UGX", "VND", "VUV",
    "XAF", "XOF", "XPF",
];
const THREE_DECIMAL: &[&str] = &["BHD", "JOD", "KWD", "OMR", "TND"];

/// How many minor units one major unit of `currency` (upper case) holds.
pub fn minor_units_per_major(currency: &str) -> i64 {
    if ZERO_DECIMAL.contains(&currency) {
        1
    } else if THREE_DECIMAL.contains(&currency) {
        1000
    } else {
        100
    }
}

const SORTS: &[&str] = &["price", "tok_s", "price_per_mtok"];

impl Search {
    /// Parses a query such as `gpu=rtx-3060-12gb price<=0.40 usd tok_s@16k/4>=100 verified`.
    pub fn parse(query: &str) -> Result<Self, QueryError> {
        let mut search = Search::default();
        let words: Vec<&str> = query.split_whitespace().collect();
        let mut i = 0;
        while i < words.len() {
            let word = words[i];
            i += 1;
            if word == "verified" {
                search.verified = Some(true);
                continue;
            }
            let term = Term::read(
                word,
                "expected FIELD=VALUE, FIELD<=VALUE or FIELD>=VALUE, or `verified`",
            )?;
            let (field, value) = (term.field, term.value);
            let error = |reason: String| term.error(reason);
            let only = |allowed: &str| term.only(allowed);
            match field {
                "gpu" => {
                    only("=")?;
                    search.gpu = Some(value.to_owned());
                }
                "region" => {
                    only("=")?;
                    search.region = Some(value.to_owned());
                }
                "vram" => {
                    only(">=")?;
                    search.min_vram_gb = Some(positive_integer(value).map_err(error)?);
                }
                "gpus" => {
                    only(">=")?;
                    search.gpu_count = Some(positive_integer(value).map_err(error)?);
                }
                "price" => {
                    only("<=")?;
                    // The currency follows the amount, as its own word or glued to it.
                    let split = value
                        .find(|c: char| c.is_ascii_alphabetic())
                        .unwrap_or(value.len());
                    let (amount, glued) = value.split_at(split);
                    let currency = if glued.is_empty() {
                        match words.get(i) {
                            Some(next) if is_currency(next) => {
                                i += 1;
                                *next
                            }
                            _ => {
                                return Err(error(
                                    "name the currency after the amount, e.g. `price<=0.40 usd`"
                                        .into(),
                                ));
                            }
                        }
                    } else if is_currency(glued) {
                        glued
                    } else {
                        return Err(error(format!("`{glued}` is not a currency code")));
                    };
                    let currency = currency.to_ascii_uppercase();
                    search.max_price = Some(minor_units(amount, &currency).map_err(error)?);
                    search.currency = Some(currency);
                }
                "sort" => {
                    only("=")?;
                    if !SORTS.contains(&value) {
                        return Err(error(format!("sort by one of {}", SORTS.join(", "))));
                    }
                    search.sort = Some(value.to_owned());
                }
                "from" | "until" => {
                    term.set_interval(&mut search.available_from, &mut search.available_until)?;
                }
                _ if field == "tok_s" || field.starts_with("tok_s@") => {
                    only(">=")?;
                    if let Some(cell) = field.strip_prefix("tok_s@") {
                        let (context, concurrency) = cell.split_once('/').ok_or_else(|| {
                            error("a cell is CONTEXT/CONCURRENCY, e.g. tok_s@16k/4".into())
                        })?;
                        search.context = Some(tokens(context).map_err(error)?);
                        search.concurrency = Some(positive_integer(concurrency).map_err(error)?);
                    }
                    let rate: f64 = value
                        .parse()
                        .ok()
                        .filter(|r: &f64| r.is_finite() && *r >= 0.0)
                        .ok_or_else(|| error(format!("`{value}` is not a rate in tok/s")))?;
                    search.min_total_tok_s = Some(rate);
                }
                _ => {
                    return Err(error(format!(
                        "unknown field `{field}` (known: gpu, vram, price, tok_s, tok_s@C/B, \
                         verified, region, gpus, from, until, sort)"
                    )));
                }
            }
        }
        Ok(search)
    }

    /// The parameters in the order the table above lists them, as the API names them.
    pub fn to_pairs(&self) -> Vec<(&'static str, String)> {
        let mut pairs = Vec::new();
        let mut add = |key: &'static str, value: Option<String>| {
            if let Some(value) = value {
                pairs.push((key, value));
            }
        };
        add("gpu", self.gpu.clone());
        add("min_vram_gb", self.min_vram_gb.map(|v| v.to_string()));
        add("max_price", self.max_price.map(|v| v.to_string()));
        add("currency", self.currency.clone());
        add(
            "min_total_tok_s",
            self.min_total_tok_s.map(|v| v.to_string()),
        );
        add("context", self.context.map(|v| v.to_string()));
        add("concurrency", self.concurrency.map(|v| v.to_string()));
        add("verified", self.verified.map(|v| v.to_string()));
        add("region", self.region.clone());
        add("gpu_count", self.gpu_count.map(|v| v.to_string()));
        add(
            "available_from",
            self.available_from.map(|t| t.to_rfc3339()),
        );
        add(
            "available_until",
            self.available_until.map(|t| t.to_rfc3339()),
        );
        add("sort", self.sort.clone());
        pairs
    }
}

/// One term of a query: `FIELD OP VALUE`, with a value.
pub(crate) struct Term<'a> {
    word: &'a str,
    pub field: &'a str,
    pub op: &'a str,
    pub value: &'a str,
}

impl<'a> Term<'a> {
    /// `word` as a comparison with a value; `expected` says what a term looks like.
    pub(crate) fn read(word: &'a str, expected: &str) -> Result<Self, QueryError> {
        let Some((field, op, value)) = split_comparison(word) else {
            return Err(QueryError {
                term: word.to_owned(),
                reason: expected.to_owned(),
            });
        };
        let term = Self {
            word,
            field,
            op,
            value,
        };
        if value.is_empty() {
            return Err(term.error("the value is missing".into()));
        }
        Ok(term)
    }

    /// This term is wrong, for `reason`.
    pub(crate) fn error(&self, reason: String) -> QueryError {
        QueryError {
            term: self.word.to_owned(),
            reason,
        }
    }

    /// `from=T` or `until=T` (RFC 3339): the interval's end it names.
    pub(crate) fn set_interval(
        &self,
        from: &mut Option<chrono::DateTime<chrono::Utc>>,
        until: &mut Option<chrono::DateTime<chrono::Utc>>,
    ) -> Result<(), QueryError> {
        self.only("=")?;
        let at = chrono::DateTime::parse_from_rfc3339(self.value)
            .map_err(|e| self.error(format!("not an RFC 3339 time ({e})")))?
            .to_utc();
        *if self.field == "from" { from } else { until } = Some(at);
        Ok(())
    }

    /// Its field takes only the operator `allowed`.
    pub(crate) fn only(&self, allowed: &str) -> Result<(), QueryError> {
        if self.op == allowed {
            Ok(())
        } else {
            Err(self.error(format!(
                "`{}` takes `{allowed}`, not `{}`",
                self.field, self.op
            )))
        }
    }
}

/// `field`, the operator and the value of `word`, when it is a comparison.
fn split_comparison(word: &str) -> Option<(&str, &str, &str)> {
    for op in ["<=", ">=", "="] {
        if let Some(at) = word.find(op) {
            let (field, rest) = word.split_at(at);
            return (!field.is_empty()).then(|| (field, op, &rest[op.len()..]));
        }
    }
    None
}

pub(crate) fn is_currency(word: &str) -> bool {
    word.len() == 3 && word.chars().all(|c| c.is_ascii_alphabetic())
}

pub(crate) fn positive_integer(value: &str) -> Result<i64, String> {
    value
        .parse::<i64>()
        .ok()
        .filter(|n| *n >= 1)
        .ok_or_else(|| format!("`{value}` is not a whole number of at least 1"))
}

/// A context in tokens: `16k` is 16,384 (the reference page's count), `0` none.
pub fn tokens(value: &str) -> Result<i64, String> {
    let bad = || format!("`{value}` is not a context such as 0, 1024 or 16k");
    let (digits, scale) = match value.strip_suffix(['k', 'K']) {
        Some(digits) => (digits, 1024),
        None => (value, 1),
    };
    let n: i64 = digits.parse().map_err(|_| bad())?;
    n.checked_mul(scale).filter(|t| *t >= 0).ok_or_else(bad)
}

/// `amount` in major units of `currency` as minor units, refusing more decimals than the
/// currency has (a price is never rounded behind the renter's back).
pub(crate) fn minor_units(amount: &str, currency: &str) -> Result<i64, String> {
    let per_major = minor_units_per_major(currency);
    let decimals = per_major.ilog10() as usize;
    let bad = || format!("`{amount}` is not an amount of {currency}");
    let (whole, fraction) = amount.split_once('.').unwrap_or((amount, ""));
    if whole.is_empty() && fraction.is_empty()
        || !whole.chars().all(|c| c.is_ascii_digit())
        || !fraction.chars().all(|c| c.is_ascii_digit())
    {
        return Err(bad());
    }
    if fraction.len() > decimals {
        return Err(format!(
            "{currency} has {decimals} decimal place(s); `{amount}` has more"
        ));
    }
    let whole: i64 = if whole.is_empty() {
        0
    } else {
        whole.parse().map_err(|_| bad())?
    };
    let fraction: i64 = if fraction.is_empty() {
        0
    } else {
        format!("{fraction:0<decimals$}")
            .parse()
            .map_err(|_| bad())?
    };
    whole
        .checked_mul(per_major)
        .and_then(|w| w.checked_add(fraction))
        .ok_or_else(bad)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_issue_s_example_maps_to_the_api_s_parameters() {
        let search = Search::parse(
            "gpu=rtx-3060-12gb price<=0.40 usd tok_s@16k/4>=100 verified region=eu-west",
        )
        .unwrap();
        assert_eq!(
            search.to_pairs(),
            [
                ("gpu", "rtx-3060-12gb".to_owned()),
                ("max_price", "40".to_owned()),
                ("currency", "USD".to_owned()),
                ("min_total_tok_s", "100".to_owned()),
                ("context", "16384".to_owned()),
                ("concurrency", "4".to_owned()),
                ("verified", "true".to_owned()),
                ("region", "eu-west".to_owned()),
            ]
        );
    }

    #[test]
    fn prices_are_minor_units_of_their_currency() {
        let max = |q: &str| Search::parse(q).map(|s| (s.max_price, s.currency));
        assert_eq!(max("price<=0.4 usd"), Ok((Some(40), Some("USD".into()))));
        assert_eq!(max("price<=12eur"), Ok((Some(1200), Some("EUR".into()))));
        assert_eq!(max("price<=300 JPY"), Ok((Some(300), Some("JPY".into()))));
        assert_eq!(max("price<=1.5 kwd"), Ok((Some(1500), Some("KWD".into()))));
        assert_eq!(max("price<=.5 usd"), Ok((Some(50), Some("USD".into()))));
        for bad in [
            "price<=0.401 usd",
            "price<=300.5 jpy",
            "price<=0.40",
            "price<=a usd",
        ] {
            assert!(Search::parse(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn contexts_count_1024_tokens_a_k() {
        let cell = |q: &str| Search::parse(q).map(|s| (s.context, s.concurrency));
        assert_eq!(cell("tok_s@0/1>=1"), Ok((Some(0), Some(1))));
        assert_eq!(cell("tok_s@32K/8>=1"), Ok((Some(32768), Some(8))));
        assert_eq!(cell("tok_s@1000/2>=1"), Ok((Some(1000), Some(2))));
        assert_eq!(cell("tok_s>=5"), Ok((None, None)));
    }

    #[test]
    fn a_bad_term_is_named_with_the_reason() {
        for (query, term, says) in [
            ("verified gpu~rtx", "gpu~rtx", "expected FIELD=VALUE"),
            ("price>=1 usd", "price>=1", "`price` takes `<=`"),
            ("tok_s@16q/4>=100", "tok_s@16q/4>=100", "not a context"),
            ("tok_s@16k>=100", "tok_s@16k>=100", "CONTEXT/CONCURRENCY"),
            ("speed>=3", "speed>=3", "unknown field `speed`"),
            ("sort=fast", "sort=fast", "sort by one of"),
            ("gpus>=0", "gpus>=0", "at least 1"),
            ("region=", "region=", "missing"),
            ("from=tomorrow", "from=tomorrow", "RFC 3339"),
            ("price<=1 dollars", "price<=1", "name the currency"),
        ] {
            let err = Search::parse(query).unwrap_err();
            assert_eq!(err.term, term, "{query}");
            assert!(err.to_string().contains(says), "{query}: {err}");
        }
    }
}
