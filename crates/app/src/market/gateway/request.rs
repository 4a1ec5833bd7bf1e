//! A request on its way to the engine: refused when it is more than one sequence, its
//! `max_tokens` within the cap and — when it sets none — never more than what is left of the
//! served context, usage asked for on a stream, and whether the guarantee may judge it: only
//! a stream of the listing's model asking what the benchmark itself sends, each value within
//! its documented range. What is not judged is still served.

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
/// as its prompt has bytes (an engine claiming more is not believed).
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
            max_tokens: Some(self.max_tokens),
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

/// What the listing serves, as a request is prepared for it.
#[derive(Debug, Clone, Copy)]
pub struct Served<'a> {
    /// The largest `max_tokens` a request may ask for (and at most what it gets when it
    /// asks none).
    pub cap: u64,
    /// The listing's model: a request naming another is served, not judged.
    pub model: &'a str,
    /// The served context (`max_model_len` of the listing's verified report), when known.
    pub max_model_len: Option<u64>,
}

/// Refuses what the gateway does not serve: more than one sequence.
pub fn check(request: &Map<String, Value>) -> Result<(), AppError> {
    openai::request::one_sequence(request).map_err(|u| AppError::UnsupportedRequest {
        field: u.field,
        why: u.why,
    })
}

/// Whether the gateway must count the prompt's tokens (the engine's `/tokenize`) before it
/// sets a `max_tokens` the request did not: only when the served context is known and the
/// prompt's bound ([`openai::request::prompt_bound`]) and the cap might not fit in it.
pub fn must_count(request: &Map<String, Value>, served: Served<'_>) -> bool {
    let asked = ["max_tokens", "max_completion_tokens"]
        .iter()
        .any(|f| request.get(*f).is_some_and(|v| !v.is_null()));
    let Some(context) = served.max_model_len else {
        return false;
    };
    !asked
        && openai::request::prompt_bound(request)
            .is_none_or(|bound| bound.saturating_add(served.cap) > context)
}

/// Prepares `request` (a JSON object of `body_len` bytes) for the engine: one sequence,
/// `max_tokens` and `max_completion_tokens` within the cap; when neither is given,
/// `max_tokens` set to the cap or, when that would not fit the served context, to what is
/// left of it after the prompt (`prompt_tokens` as the engine counted them, else the
/// prompt's bound; 1 when nothing is left: the engine refuses the prompt); usage asked for
/// on a stream. Judged only when its prompt is plain text.
pub fn prepare(
    mut request: Map<String, Value>,
    body_len: usize,
    served: Served<'_>,
    prompt_tokens: Option<u64>,
) -> Result<Prepared, AppError> {
    check(&request)?;
    let cap = served.cap;
    let bound = openai::request::prompt_bound(&request);
    // Judged on what the client asked, before the gateway adds its own options.
    // Plain text only (a prompt its bytes bound), as the benchmark sends.
    let judged_fields = openai::request::judged(&request)
        && bound.is_some()
        && openai::request::in_documented_range(&request)
        && request
            .get("model")
            .is_none_or(|m| m.is_null() || m.as_str() == Some(served.model));
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
        // The engine's count is believed no further than the prompt's bound.
        let prompt = match (prompt_tokens, bound) {
            (Some(counted), Some(bound)) => Some(counted.min(bound)),
            (counted, bound) => counted.or(bound),
        };
        let room = match (served.max_model_len, prompt) {
            (Some(context), Some(prompt)) => context.saturating_sub(prompt),
            (Some(_), None) | (None, _) => cap,
        };
        // Nothing left: 1, never the engine's own default (the engine refuses a prompt that
        // fills its context whatever is asked).
        let max_tokens = cap.min(room.max(1));
        request.insert("max_tokens".to_owned(), json!(max_tokens));
        max_tokens
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
            max_prompt_tokens: bound.map_or(body_len as u64, |b| b.min(body_len as u64)),
        },
        strip_usage,
        judged: stream && judged_fields,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn object(value: Value) -> Map<String, Value> {
        value.as_object().cloned().unwrap_or_default()
    }

    const SERVED: Served<'static> = Served {
        cap: 64,
        model: "m",
        max_model_len: None,
    };

    fn sent(prepared: &Prepared) -> Value {
        serde_json::from_slice(&prepared.body).unwrap()
    }

    #[test]
    fn a_request_is_capped_asks_for_usage_and_is_judged_only_when_plain() {
        let plain = object(json!({"model": "m", "prompt": "x", "stream": true}));
        let prepared = prepare(plain, 40, SERVED, None).unwrap();
        let body = sent(&prepared);
        assert_eq!(body["max_tokens"], 64);
        assert_eq!(body["stream_options"]["include_usage"], true);
        assert!(prepared.strip_usage && prepared.judged && prepared.stream);
        // The gateway's own additions do not make a request unjudged; a field beyond the
        // allow-list does, and so does not streaming.
        let biased = object(json!({"prompt": "x", "stream": true, "logit_bias": {"5": 10}}));
        assert!(!prepare(biased, 40, SERVED, None).unwrap().judged);
        let whole = object(json!({"prompt": "x", "max_tokens": 8}));
        let prepared = prepare(whole, 40, SERVED, None).unwrap();
        assert!(!prepared.judged && !prepared.stream && prepared.caps.max_tokens == 8);
    }

    #[test]
    fn another_model_or_a_value_out_of_range_is_served_and_not_judged() {
        for asked in [
            json!({"model": "nope", "prompt": "x", "stream": true}),
            json!({"model": 5, "prompt": "x", "stream": true}),
            json!({"model": "m", "prompt": "x", "stream": true, "temperature": 7}),
            json!({"model": "m", "prompt": "x", "stream": true, "stop": [1, 2]}),
        ] {
            let prepared = prepare(object(asked.clone()), 60, SERVED, None).unwrap();
            assert!(prepared.stream && !prepared.judged, "{asked}");
        }
        let unnamed = object(json!({"prompt": "x", "stream": true, "temperature": 0}));
        assert!(prepare(unnamed, 60, SERVED, None).unwrap().judged);
    }

    #[test]
    fn the_max_tokens_set_fits_what_is_left_of_the_served_context() {
        let served = Served {
            cap: 8192,
            model: "m",
            max_model_len: Some(2048),
        };
        // A short prompt and the whole cap would not fit 2,048: the prompt is counted, and
        // what is left of the context is set.
        let short = object(json!({"prompt": "hello", "stream": true}));
        assert!(must_count(&short, served));
        let prepared = prepare(short.clone(), 40, served, Some(2)).unwrap();
        assert_eq!(sent(&prepared)["max_tokens"], 2046);
        assert_eq!(prepared.caps.max_tokens, 2046);
        // An engine counting more tokens than the prompt has bytes is not believed.
        assert_eq!(
            sent(&prepare(short.clone(), 40, served, Some(4000)).unwrap())["max_tokens"],
            2043
        );
        // Without a count (the engine could not tokenize): the prompt's bytes.
        assert_eq!(
            sent(&prepare(short, 40, served, None).unwrap())["max_tokens"],
            2043
        );
        // A chat: 64 a message for the template besides its text.
        let chat = object(json!({"messages": [{"role": "user", "content": "Hi"}]}));
        assert_eq!(
            sent(&prepare(chat, 60, served, None).unwrap())["max_tokens"],
            2048 - 66
        );
        // Room for the cap: no count is needed and the cap is set.
        let roomy = Served {
            max_model_len: Some(100_000),
            ..served
        };
        let long = object(json!({"prompt": "x".repeat(1000)}));
        assert!(!must_count(&long, roomy));
        assert_eq!(
            sent(&prepare(long, 1020, roomy, None).unwrap())["max_tokens"],
            8192
        );
        // Nothing left: 1 (never the engine's own default); the engine refuses the prompt.
        let full = object(json!({"prompt": "x".repeat(3000)}));
        let prepared = prepare(full, 3020, served, Some(2500)).unwrap();
        assert_eq!(sent(&prepared)["max_tokens"], 1);
        // A chat with an image part is served, never judged, and its prompt is counted.
        let image = object(
            json!({"stream": true, "messages": [{"role": "user", "content": [
            {"type": "image_url", "image_url": {"url": "https://x/y.png"}}]}]}),
        );
        assert!(must_count(&image, served));
        assert!(!prepare(image, 200, served, Some(900)).unwrap().judged);
        // A request that sets its own is never counted, nor one for a context unknown.
        let own = object(json!({"prompt": "x", "max_tokens": 9}));
        assert!(!must_count(&own, served));
        assert!(!must_count(&object(json!({"prompt": "x"})), SERVED));
    }

    #[test]
    fn more_than_one_sequence_or_too_many_tokens_is_refused() {
        let farm = object(json!({"prompt": ["a", "b", "c"], "stream": true}));
        assert!(matches!(
            prepare(farm, 40, SERVED, None),
            Err(AppError::UnsupportedRequest {
                field: "prompt",
                ..
            })
        ));
        let greedy = object(json!({"prompt": "x", "max_tokens": 65}));
        assert!(matches!(
            prepare(greedy, 40, SERVED, None),
            Err(AppError::Validation(_))
        ));
    }
}
