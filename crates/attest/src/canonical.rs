//! Canonical JSON: RFC 8785 (JCS) — object keys sorted by their UTF-16 code units, numbers as
//! ECMAScript writes them, no insignificant whitespace. Signatures cover the exact payload
//! bytes, so canonical form is not needed to verify one; it makes the same statement always
//! produce the same bytes (and digest), and it is the form of a report's envelope in the
//! transparency log, which anyone can recompute from the envelope.

use serde_json::Value;

/// A JSON value in RFC 8785 canonical form.
pub fn canonical_json(value: &Value) -> Vec<u8> {
    // A `Value` holds no non-finite number and only string keys: JCS cannot refuse it.
    serde_jcs::to_vec(value).unwrap_or_else(|_| value.to_string().into_bytes())
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

    #[test]
    fn numbers_and_keys_follow_rfc_8785() {
        // RFC 8785 §3.2.2.3 and its sorting example (UTF-16 code units, not bytes).
        let value: Value = serde_json::from_str(
            r#"{"numbers": [333333333.33333329, 1E30, 4.50, 2e-3, 0.000000000000000000000000001, 24.0],
                "\u20ac": "Euro Sign", "\r": "Carriage Return", "\ud83d\ude00": "Emoji: Grinning Face",
                "\u0080": "Control", "\u00f6": "Latin Small Letter O With Diaeresis", "1": "One"}"#,
        )
        .unwrap();
        assert_eq!(
            String::from_utf8(canonical_json(&value)).unwrap(),
            "{\"\\r\":\"Carriage Return\",\"1\":\"One\",\"numbers\":[333333333.3333333,1e+30,4.5,0.002,1e-27,24],\"\u{80}\":\"Control\",\"\u{f6}\":\"Latin Small Letter O With Diaeresis\",\"\u{20ac}\":\"Euro Sign\",\"\u{1f600}\":\"Emoji: Grinning Face\"}"
        );
    }
}
