//! Money: a whole number of a currency's minor units, with the currency. Amounts never travel
//! without their currency, and a currency knows its ISO 4217 exponent — a yen has no minor
//! unit, so ¥1,500 is `Money { minor: 1500, currency: JPY }`, not 15.00.

use std::fmt;
use std::str::FromStr;

use crate::ValidationError;

/// The currencies prices may be in, with their ISO 4217 minor-unit exponents.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Currency {
    Usd,
    Eur,
    Gbp,
    Chf,
    Cad,
    Aud,
    Jpy,
    Sek,
    Nok,
    Dkk,
}

impl Currency {
    pub const ALL: [Currency; 10] = [
        Self::Usd,
        Self::Eur,
        Self::Gbp,
        Self::Chf,
        Self::Cad,
        Self::Aud,
        Self::Jpy,
        Self::Sek,
        Self::Nok,
        Self::Dkk,
    ];

    /// The ISO 4217 code, upper case.
    pub fn code(self) -> &'static str {
        match self {
            Self::Usd => "USD",
            Self::Eur => "EUR",
            Self::Gbp => "GBP",
            Self::Chf => "CHF",
            Self::Cad => "CAD",
            Self::Aud => "AUD",
            Self::Jpy => "JPY",
            Self::Sek => "SEK",
            Self::Nok => "NOK",
            Self::Dkk => "DKK",
        }
    }

    /// Digits after the decimal point (ISO 4217): 0 for the yen, 2 for the others here.
    pub fn exponent(self) -> u32 {
        match self {
            Self::Jpy => 0,
            Self::Usd
            | Self::Eur
            | Self::Gbp
            | Self::Chf
            | Self::Cad
            | Self::Aud
            | Self::Sek
            | Self::Nok
            | Self::Dkk => 2,
        }
    }

    /// A code as a client sent it (any case, surrounding space ignored); an unknown one is
    /// refused naming `field` and listing what is accepted.
    pub fn parse(field: &'static str, raw: &str) -> Result<Self, ValidationError> {
        raw.parse().map_err(|UnknownCurrency| {
            let known: Vec<&str> = Self::ALL.iter().map(|c| c.code()).collect();
            ValidationError::new(field, format!("must be one of {}", known.join(", ")))
        })
    }
}

/// A currency code we do not take.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error("unknown currency")]
pub struct UnknownCurrency;

impl FromStr for Currency {
    type Err = UnknownCurrency;

    fn from_str(raw: &str) -> Result<Self, Self::Err> {
        let code = raw.trim().to_ascii_uppercase();
        Self::ALL
            .into_iter()
            .find(|c| c.code() == code)
            .ok_or(UnknownCurrency)
    }
}

impl fmt::Display for Currency {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.code())
    }
}

/// An amount in minor units of its currency.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Money {
    minor: i64,
    currency: Currency,
}

impl Money {
    pub fn new(minor: i64, currency: Currency) -> Self {
        Self { minor, currency }
    }

    /// The amount in minor units (cents; for the yen, yen).
    pub fn minor(self) -> i64 {
        self.minor
    }

    pub fn currency(self) -> Currency {
        self.currency
    }

    /// The same currency, another amount.
    pub fn with_minor(self, minor: i64) -> Self {
        Self { minor, ..self }
    }

    /// This amount `n` times, saturating (a machine's price per hour from its price per GPU).
    pub fn times(self, n: i64) -> Self {
        self.with_minor(self.minor.saturating_mul(n))
    }

    /// `part / whole` of this amount, rounded towards zero (a fee in basis points, the
    /// fee's share of a partial refund); nothing when `whole` is not positive.
    pub fn share(self, part: i64, whole: i64) -> Self {
        if whole <= 0 {
            return self.with_minor(0);
        }
        let minor = i128::from(self.minor) * i128::from(part) / i128::from(whole);
        self.with_minor(i64::try_from(minor).unwrap_or(0))
    }
}

/// What a million output tokens cost, in minor units of the price's currency, on a machine
/// that costs `per_hour` and writes `total_tok_s` tokens a second (all its requests together);
/// `None` when it writes none. The one definition every listing, cell and offer uses.
pub fn price_per_mtok(per_hour: Money, total_tok_s: f64) -> Option<f64> {
    (total_tok_s.is_finite() && total_tok_s > 0.0)
        .then(|| per_hour.minor() as f64 / (total_tok_s * 3600.0) * 1_000_000.0)
}

/// `60.00 USD`, `6000 JPY`: the amount with as many decimals as the currency has.
impl fmt::Display for Money {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let exponent = self.currency.exponent();
        if exponent == 0 {
            return write!(f, "{} {}", self.minor, self.currency);
        }
        let scale = 10i64.pow(exponent);
        let sign = if self.minor < 0 { "-" } else { "" };
        let abs = self.minor.unsigned_abs();
        let scale = scale.unsigned_abs();
        write!(
            f,
            "{sign}{}.{:0width$} {}",
            abs / scale,
            abs % scale,
            self.currency,
            width = exponent as usize
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_parse_in_any_case_and_unknown_ones_name_the_field() {
        assert_eq!(
            Currency::parse("price.currency", " jpy ").unwrap(),
            Currency::Jpy
        );
        assert_eq!("EUR".parse::<Currency>().unwrap(), Currency::Eur);
        let err = Currency::parse("price.currency", "XYZ").unwrap_err();
        assert_eq!(err.field, "price.currency");
        assert!(err.message.contains("USD") && err.message.contains("JPY"));
        for currency in Currency::ALL {
            assert_eq!(currency.code().parse::<Currency>().unwrap(), currency);
        }
    }

    #[test]
    fn shares_round_towards_zero() {
        let usd = |minor| Money::new(minor, Currency::Usd);
        assert_eq!(usd(600).share(1000, 10_000), usd(60), "10 % of 600");
        assert_eq!(usd(60).share(450, 600), usd(45));
        assert_eq!(usd(7).share(1, 3), usd(2));
        assert_eq!(usd(7).share(1, 0), usd(0));
        assert_eq!(
            Money::new(1500, Currency::Jpy).share(1, 2).to_string(),
            "750 JPY"
        );
    }

    #[test]
    fn price_per_million_tokens_is_the_machine_hour_over_its_hourly_output() {
        // 2 GPUs at 150 cents each = 300 cents an hour; 100 tok/s = 360,000 tokens an hour.
        let per_hour = Money::new(150, Currency::Usd).times(2);
        let ppm = price_per_mtok(per_hour, 100.0).unwrap();
        assert!((ppm - 300.0 / 360_000.0 * 1e6).abs() < 1e-9);
        // 40 cents an hour at 160 tok/s: 576,000 tokens an hour, 69.4 cents per million.
        let ppm = price_per_mtok(Money::new(40, Currency::Usd), 160.0).unwrap();
        assert!((ppm - 40.0 / 0.576).abs() < 1e-9);
        for none in [0.0, -1.0, f64::NAN, f64::INFINITY] {
            assert_eq!(price_per_mtok(per_hour, none), None);
        }
        assert_eq!(
            Money::new(i64::MAX / 2, Currency::Usd).times(3).minor(),
            i64::MAX
        );
    }

    #[test]
    fn the_yen_has_no_minor_unit() {
        assert_eq!(Currency::Jpy.exponent(), 0);
        assert_eq!(Currency::Usd.exponent(), 2);
        assert_eq!(Money::new(6000, Currency::Jpy).to_string(), "6000 JPY");
        assert_eq!(Money::new(6000, Currency::Usd).to_string(), "60.00 USD");
        assert_eq!(Money::new(-5, Currency::Eur).to_string(), "-0.05 EUR");
    }
}
