//! A request on its way to the engine: refused when it is more than one sequence, its
//! `max_tokens` within the cap, usage asked for on a stream, and whether the guarantee may
//! judge it (only what the benchmark itself sends, and only streams).

use domain::ValidationError;
use serde_json::{Map, Value, json};

use super::Metered;
use crate::AppError;

/// A request as the engine gets it.
#[derive(Debug, Clone)]
pub struct Prepared {
    pub body: Vec<u8>,
    pub stream: bool,
    pub caps: Caps,
    /// The gateway added `stream_options.include_usage`: it strips the usage it gets.
    pub strip_usage: bool,
    /// Judged against the verified figures: a stream asking for nothing else.
    pub judged: bool,
}

/// What a request's metering may not exceed: its `max_tokens`, and as many prompt tokens
/// as its body has bytes (an engine claiming more is not believed).
#[derive(Debug, Clone, Copy)]
pub struct Caps {
    pub max_tokens: u64,
    pub max_prompt_tokens: u64,
}

impl Caps {
    /// Metering from the engine's `usage` (prompt, completion) and the `output` tokens
    /// believed, within the caps.
    pub fn meter(self, usage: Option<(u64, u64)>, output: u64, outcome: &'static str) -> Metered {
        Metered {
            prompt_tokens: usage.map_or(0, |(prompt, _)| prompt.min(self.max_prompt_tokens)),
            output_tokens: output.min(self.max_tokens),
            engine_output_tokens: usage.map(|(_, completion)| completion),
            outcome,
            ..Metered::default()
        }
    }

    /// A whole (not streamed) answer: its usage, the completion believed up to the answer's
    /// length in bytes.
    pub fn meter_answer(self, answer: &[u8], outcome: &'static str) -> Metered {
        let usage = openai::chunk::answer_usage(answer);
        let output = usage.map_or(0, |(_, claimed)| claimed.min(answer.len() as u64));
        self.meter(usage, output, outcome)
    }
}

/// Prepares `request` (a JSON object of `body_len` bytes) for the engine: one sequence,
/// `max_tokens` and `max_completion_tokens` within `cap` (`max_tokens` set to it when neither
/// is given), and usage asked for on a stream.
pub fn prepare(
    mut request: Map<String, Value>,
    body_len: usize,
    cap: u64,
) -> Result<Prepared, AppError> {
    openai::request::one_sequence(&request).map_err(|u| AppError::UnsupportedRequest {
        field: u.field,
        why: u.why,
    })?;
    // Judged on what the client asked, before the gateway adds its own options.
    let asked_only_judged_fields = openai::request::judged(&request);
    let mut max_tokens = None;
    for field in ["max_tokens", "max_completion_tokens"] {
        match request.get(field) {
            None | Some(Value::Null) => {}
            Some(v) => match v.as_u64() {
                Some(n) if (1..=cap).contains(&n) => {
                    max_tokens = Some(max_tokens.map_or(n, |m: u64| m.max(n)));
                }
                _ => {
                    return Err(ValidationError::new(
                        field,
                        format!("must be a whole number from 1 to {cap}"),
                    )
                    .into());
                }
            },
        }
    }
    let max_tokens = max_tokens.unwrap_or_else(|| {
        request.insert("max_tokens".to_owned(), json!(cap));
        cap
    });
    let stream = match request.get("stream") {
        None | Some(Value::Null) => false,
        Some(Value::Bool(stream)) => *stream,
        Some(_) => return Err(ValidationError::new("stream", "must be true or false").into()),
    };
    let mut strip_usage = false;
    if stream {
        if request.get("stream_options").is_some_and(Value::is_null) {
            request.remove("stream_options");
        }
        let asked = request
            .get("stream_options")
            .and_then(|o| o.get("include_usage"))
            .and_then(Value::as_bool)
            == Some(true);
        if !asked {
            let options = request.entry("stream_options").or_insert_with(|| json!({}));
            let Some(options) = options.as_object_mut() else {
                return Err(ValidationError::new("stream_options", "must be an object").into());
            };
            options.insert("include_usage".to_owned(), json!(true));
            strip_usage = true;
        }
    }
    let body = serde_json::to_vec(&request).map_err(|e| AppError::Internal(e.to_string()))?;
    Ok(Prepared {
        body,
        stream,
        caps: Caps {
            max_tokens,
            max_prompt_tokens: body_len as u64,
        },
        strip_usage,
        judged: stream && asked_only_judged_fields,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn object(value: Value) -> Map<String, Value> {
        value.as_object().cloned().unwrap_or_default()
    }

    #[test]
    fn a_request_is_capped_asks_for_usage_and_is_judged_only_when_plain() {
        let plain = object(json!({"model": "m", "prompt": "x", "stream": true}));
        let prepared = prepare(plain, 40, 64).unwrap();
        let sent: Value = serde_json::from_slice(&prepared.body).unwrap();
        assert_eq!(sent["max_tokens"], 64);
        assert_eq!(sent["stream_options"]["include_usage"], true);
        assert!(prepared.strip_usage && prepared.judged && prepared.stream);
        // The gateway's own additions do not make a request unjudged; a field beyond the
        // allow-list does, and so does not streaming.
        let biased = object(json!({"prompt": "x", "stream": true, "logit_bias": {"5": 10}}));
        assert!(!prepare(biased, 40, 64).unwrap().judged);
        let whole = object(json!({"prompt": "x", "max_tokens": 8}));
        let prepared = prepare(whole, 40, 64).unwrap();
        assert!(!prepared.judged && !prepared.stream && prepared.caps.max_tokens == 8);
    }

    #[test]
    fn more_than_one_sequence_or_too_many_tokens_is_refused() {
        let farm = object(json!({"prompt": ["a", "b", "c"], "stream": true}));
        assert!(matches!(
            prepare(farm, 40, 64),
            Err(AppError::UnsupportedRequest {
                field: "prompt",
                ..
            })
        ));
        let greedy = object(json!({"prompt": "x", "max_tokens": 65}));
        assert!(matches!(
            prepare(greedy, 40, 64),
            Err(AppError::Validation(_))
        ));
    }
}
