//! One completion asked of an engine as any renter would ask it: the liveness probes' (a
//! prompt and length drawn at random, so that an engine cannot tell a probe from a request)
//! and preflight's one token. Through the outbound rules, its answer read bounded and only
//! judged (never quoted).

use std::time::Duration as StdDuration;

/// Whether a completion's answer is one: JSON with at least one choice.
fn answered(body: &[u8]) -> bool {
    #[derive(serde::Deserialize)]
    struct Answer {
        choices: Vec<serde::de::IgnoredAny>,
    }
    serde_json::from_slice::<Answer>(body).is_ok_and(|a| !a.choices.is_empty())
}

/// Ordinary words a probe's prompt is made of, six drawn at random each time: an engine
/// cannot tell a probe from a renter's request by a fixed prompt and answer only probes.
const PROBE_WORDS: &[&str] = &[
    "the", "weather", "today", "a", "short", "note", "about", "river", "garden", "train",
    "morning", "letter", "green", "quiet", "city", "book", "write", "next", "story", "after",
];

/// A probe's prompt and `max_tokens` (1 to 4), drawn from `seed`.
fn probe_prompt(seed: [u8; 8]) -> (String, u64) {
    let words: Vec<&str> = seed[..6]
        .iter()
        .map(|b| PROBE_WORDS[usize::from(*b) % PROBE_WORDS.len()])
        .collect();
    (words.join(" "), 1 + u64::from(seed[6] % 4))
}

/// Probes an engine: a completion of a few tokens of `model` at `base`'s `/v1/completions`
/// (its prompt and length drawn at random, so that a probe looks like any request), with
/// `key` as its bearer token, answered HTTP 2xx with at least one choice within `timeout`.
/// The address is checked under `policy` (the client must be built under it too, so that
/// every resolved address is checked); the answer is read up to 64 KiB and only judged.
pub async fn probe_engine(
    client: &reqwest::Client,
    (base, model): (&str, &str),
    key: Option<&str>,
    timeout: StdDuration,
    policy: outbound::Policy,
) -> bool {
    complete_once(client, (base, model), key, timeout, policy, None)
        .await
        .is_ok()
}

/// A completion of `max_tokens` (random, 1 to 4, when `None`) as [`probe_engine`] asks for
/// one: why it was not answered, in words of ours (never the engine's).
pub async fn complete_once(
    client: &reqwest::Client,
    (base, model): (&str, &str),
    key: Option<&str>,
    timeout: StdDuration,
    policy: outbound::Policy,
    max_tokens: Option<u64>,
) -> Result<(), String> {
    let url = outbound::engine_url(base, "/v1/completions", policy).map_err(|e| e.to_string())?;
    let (prompt, drawn) = probe_prompt(crate::secrets::random_bytes::<8>().unwrap_or_default());
    let body = serde_json::json!({
        "model": model,
        "prompt": prompt,
        "max_tokens": max_tokens.unwrap_or(drawn),
    });
    let mut request = client
        .post(url)
        .header("content-type", "application/json")
        .body(body.to_string())
        .timeout(timeout);
    if let Some(key) = key {
        request = request.bearer_auth(key);
    }
    let exchange = async {
        let mut response = request.send().await.map_err(|e| {
            if e.is_connect() {
                "the connection was refused or is not allowed"
            } else if e.is_timeout() {
                "it timed out"
            } else {
                "the exchange failed"
            }
        })?;
        let status = response.status();
        if !status.is_success() {
            return Err(format!("it answered HTTP {}", status.as_u16()));
        }
        let body = bench::bounds::read_body(&mut response, bench::bounds::SMALL_BODY)
            .await
            .map_err(|_| "its answer could not be read".to_owned())?
            .map_err(|_| "its answer is larger than a completion's".to_owned())?;
        if answered(&body) {
            Ok(())
        } else {
            Err("its answer is not a completion with a choice".to_owned())
        }
    };
    tokio::time::timeout(timeout, exchange)
        .await
        .map_err(|_| format!("not answered within {} ms", timeout.as_millis()))?
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_probe_is_not_told_apart_by_a_fixed_prompt() {
        let (a, a_tokens) = probe_prompt([0, 1, 2, 3, 4, 5, 0, 0]);
        let (b, b_tokens) = probe_prompt([9, 8, 7, 6, 5, 4, 3, 0]);
        assert_ne!(a, b);
        assert_eq!(a, "the weather today a short note");
        assert_eq!((a_tokens, b_tokens), (1, 4));
        let drawn: std::collections::HashSet<String> = (0..20)
            .map(|_| probe_prompt(crate::secrets::random_bytes::<8>().unwrap()).0)
            .collect();
        assert!(drawn.len() > 15, "{drawn:?}");
    }

    #[test]
    fn only_a_completion_with_a_choice_is_an_answer() {
        assert!(answered(br#"{"choices":[{"text":"x"}]}"#));
        assert!(!answered(br#"{"choices":[]}"#));
        assert!(!answered(br#"{"object":"error"}"#));
        assert!(!answered(b"<html>"));
    }
}
