//! What a client command prints: the API's body unchanged (`--json`), the curl commands it
//! would send (`--curl`), or a table for people — bold headers and coloured states only on a
//! terminal, so a pipe gets plain text.

use std::io::{IsTerminal, Write};

/// How a command prints.
#[derive(Debug, Clone, Copy)]
pub struct Style {
    /// ANSI colours and bold: stdout is a terminal and `NO_COLOR` is unset.
    pub colour: bool,
}

impl Style {
    pub fn detect() -> Self {
        Self {
            colour: std::io::stdout().is_terminal() && std::env::var_os("NO_COLOR").is_none(),
        }
    }

    pub fn bold(&self, text: &str) -> String {
        self.paint("1", text)
    }

    /// A state's word in a colour that says how it stands: green for what holds, yellow for
    /// what waits, red for what ended badly.
    pub fn state(&self, text: &str) -> String {
        let code = match text {
            "confirmed" | "active" | "completed" | "verified" | "valid" | "yes" | "succeeded" => {
                "32"
            }
            "pending_payment" | "pending" | "queued" | "running" | "unverified" => "33",
            "cancelled" | "expired" | "failed" | "refuted" | "no" | "revoked" => "31",
            _ => return text.to_owned(),
        };
        self.paint(code, text)
    }

    fn paint(&self, code: &str, text: &str) -> String {
        if self.colour {
            format!("\x1b[{code}m{text}\x1b[0m")
        } else {
            text.to_owned()
        }
    }
}

/// Rows under a header, each column as wide as its widest cell (colour codes not counted).
pub fn table(style: Style, header: &[&str], rows: &[Vec<String>]) -> String {
    let visible = |cell: &str| strip_ansi(cell).chars().count();
    let mut widths: Vec<usize> = header.iter().map(|h| h.chars().count()).collect();
    for row in rows {
        for (i, cell) in row.iter().enumerate() {
            if let Some(w) = widths.get_mut(i) {
                *w = (*w).max(visible(cell));
            }
        }
    }
    let line = |cells: Vec<String>| -> String {
        let last = cells.len().saturating_sub(1);
        cells
            .iter()
            .enumerate()
            .map(|(i, cell)| {
                if i == last {
                    cell.clone()
                } else {
                    let pad = widths[i].saturating_sub(visible(cell));
                    format!("{cell}{}", " ".repeat(pad))
                }
            })
            .collect::<Vec<_>>()
            .join("  ")
            .trim_end()
            .to_owned()
    };
    let mut out = line(header.iter().map(|h| style.bold(h)).collect());
    out.push('\n');
    for row in rows {
        out.push_str(&line(row.clone()));
        out.push('\n');
    }
    out
}

/// `key: value` lines, the keys aligned.
pub fn fields(style: Style, pairs: &[(&str, String)]) -> String {
    let width = pairs.iter().map(|(k, _)| k.len()).max().unwrap_or(0);
    pairs
        .iter()
        .map(|(key, value)| {
            let pad = " ".repeat(width - key.len());
            format!("{}{pad}  {value}\n", style.bold(key))
        })
        .collect()
}

fn strip_ansi(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars();
    while let Some(c) = chars.next() {
        if c == '\x1b' {
            for c in chars.by_ref() {
                if c == 'm' {
                    break;
                }
            }
        } else {
            out.push(c);
        }
    }
    out
}

/// Writes `bytes` to stdout as they are.
pub fn raw(bytes: &[u8]) -> std::io::Result<()> {
    let mut out = std::io::stdout().lock();
    out.write_all(bytes)?;
    out.flush()
}

/// Writes `text` to stdout.
pub fn text(text: &str) -> std::io::Result<()> {
    raw(text.as_bytes())
}

/// An amount of minor units in its currency, e.g. `0.40 USD`.
pub fn money(amount: i64, currency: &str) -> String {
    let per_major = client::query::minor_units_per_major(&currency.to_ascii_uppercase());
    let decimals = per_major.ilog10() as usize;
    let sign = if amount < 0 { "-" } else { "" };
    let amount = amount.unsigned_abs();
    if decimals == 0 {
        return format!("{sign}{amount} {currency}");
    }
    let per_major = per_major.unsigned_abs();
    format!(
        "{sign}{}.{:0decimals$} {currency}",
        amount / per_major,
        amount % per_major
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn columns_align_whatever_the_colours() {
        let style = Style { colour: true };
        let out = table(
            style,
            &["ID", "STATE"],
            &[
                vec!["a".into(), style.state("confirmed")],
                vec!["longer".into(), "x".into()],
            ],
        );
        let plain = strip_ansi(&out);
        assert_eq!(plain, "ID      STATE\na       confirmed\nlonger  x\n");
    }

    #[test]
    fn money_prints_in_major_units() {
        assert_eq!(money(40, "USD"), "0.40 USD");
        assert_eq!(money(123_456, "EUR"), "1234.56 EUR");
        assert_eq!(money(-300, "USD"), "-3.00 USD");
        assert_eq!(money(300, "JPY"), "300 JPY");
    }
}
