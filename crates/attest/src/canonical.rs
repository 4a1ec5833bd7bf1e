//! Canonical JSON: object keys sorted, no insignificant whitespace. Signatures cover the exact
//! payload bytes, so canonical form is not needed to verify; it makes the same statement
//! always produce the same bytes (and digest), whatever map order serde was built with.

use std::fmt::Write;

use serde_json::Value;

pub fn canonical_json(value: &Value) -> Vec<u8> {
    let mut out = String::new();
    write_value(value, &mut out);
    out.into_bytes()
}

fn write_value(value: &Value, out: &mut String) {
    match value {
        Value::Object(map) => {
            let mut entries: Vec<(&String, &Value)> = map.iter().collect();
            entries.sort_by(|a, b| a.0.cmp(b.0));
            out.push('{');
            for (i, (key, value)) in entries.into_iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                let _ = write!(out, "{}", Value::String(key.clone()));
                out.push(':');
                write_value(value, out);
            }
            out.push('}');
        }
        Value::Array(items) => {
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                write_value(item, out);
            }
            out.push(']');
        }
        other => {
            let _ = write!(out, "{other}");
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_are_sorted_at_every_depth_and_spacing_is_gone() {
        let value: Value = serde_json::from_str(
            r#"{ "b": 1, "a": {"z": [3, {"y": null, "x": "é\n"}], "c": true} }"#,
        )
        .unwrap();
        assert_eq!(
            String::from_utf8(canonical_json(&value)).unwrap(),
            r#"{"a":{"c":true,"z":[3,{"x":"é\n","y":null}]},"b":1}"#
        );
    }
}
