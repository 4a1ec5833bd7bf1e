//! Numbers as the reference page prints them: thousands grouped with commas, tok/s to one
//! decimal, TTFT in whole milliseconds, contexts in binary K ("16K"), a dash for nothing.

/// Decimal digits grouped by thousands with commas.
fn grouped(digits: &str) -> String {
    let mut out = String::with_capacity(digits.len() + digits.len() / 3);
    for (i, digit) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(digit);
    }
    out
}

/// `value` with `decimals` decimals and its integer part grouped by thousands.
pub fn number(value: f64, decimals: usize) -> String {
    if !value.is_finite() {
        return "—".to_owned();
    }
    let text = format!("{:.*}", decimals, value.abs());
    let (int, frac) = text.split_once('.').unwrap_or((&text, ""));
    let grouped = grouped(int);
    let sign = if value < 0.0 && text.chars().any(|c| ('1'..='9').contains(&c)) {
        "-"
    } else {
        ""
    };
    if frac.is_empty() {
        format!("{sign}{grouped}")
    } else {
        format!("{sign}{grouped}.{frac}")
    }
}

/// A whole number, grouped (exactly: no detour through floating point).
pub fn count(value: u64) -> String {
    grouped(&value.to_string())
}

/// A rate in tok/s to one decimal, or a dash.
pub fn rate(value: Option<f64>) -> String {
    value.map_or_else(|| "—".to_owned(), |v| number(v, 1))
}

/// Milliseconds with a unit, or a dash.
pub fn ms(value: Option<f64>, decimals: usize) -> String {
    value.map_or_else(|| "—".to_owned(), |v| format!("{} ms", number(v, decimals)))
}

/// A context length as the page labels it: `16K` for a multiple of 1024 from 1024 on.
pub fn context_label(tokens: u64) -> String {
    if tokens >= 1024 && tokens.is_multiple_of(1024) {
        format!("{}K", tokens / 1024)
    } else {
        tokens.to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_read_like_the_reference_page() {
        assert_eq!(number(950.0, 1), "950.0");
        assert_eq!(number(1208.0, 0), "1,208");
        assert_eq!(number(167_672.4, 0), "167,672");
        assert_eq!(number(1_234_567.891, 1), "1,234,567.9");
        assert_eq!(number(-1234.5, 1), "-1,234.5");
        assert_eq!(number(-0.01, 1), "0.0");
        assert_eq!(number(f64::NAN, 1), "—");
        assert_eq!(count(u64::MAX), "18,446,744,073,709,551,615");
        assert_eq!(count(999), "999");
        assert_eq!(ms(Some(2604.6), 0), "2,605 ms");
        assert_eq!(ms(Some(24.84), 1), "24.8 ms");
        assert_eq!(rate(None), "—");
        assert_eq!(context_label(0), "0");
        assert_eq!(context_label(81920), "80K");
        assert_eq!(context_label(768), "768");
    }
}
