//! Completion and chat completion requests: the typed shapes an engine accepts (the
//! simulator's), and what the gateway must know of a request before it reaches an engine —
//! how many sequences it asks for, and whether it asks for anything beyond what the
//! benchmark measured.

use serde::Deserialize;
use serde_json::{Map, Value};

/// `stream_options`.
#[derive(Debug, Clone, Copy, Default, Deserialize)]
pub struct StreamOptions {
    #[serde(default)]
    pub include_usage: bool,
    #[serde(default)]
    pub continuous_usage_stats: bool,
}

/// A completion's `prompt`: text, token ids, or a list of either (one sequence each).
#[derive(Debug, Clone, Deserialize)]
#[serde(untagged)]
pub enum Prompt {
    Text(String),
    Texts(Vec<String>),
    Tokens(Vec<u32>),
    TokenLists(Vec<Vec<u32>>),
}

/// `POST /v1/completions`.
#[derive(Debug, Clone, Deserialize)]
pub struct CompletionRequest {
    pub model: Option<String>,
    pub prompt: Prompt,
    pub max_tokens: Option<u64>,
    #[serde(default)]
    pub stream: bool,
    pub stream_options: Option<StreamOptions>,
    /// llama.cpp's: `false` asks it not to reuse its prompt cache.
    pub cache_prompt: Option<bool>,
}

/// One chat message (text content).
#[derive(Debug, Clone, Deserialize)]
pub struct Message {
    pub role: String,
    pub content: String,
}

/// `POST /v1/chat/completions`.
#[derive(Debug, Clone, Deserialize)]
pub struct ChatRequest {
    pub model: Option<String>,
    pub messages: Vec<Message>,
    pub max_tokens: Option<u64>,
    pub max_completion_tokens: Option<u64>,
    #[serde(default)]
    pub stream: bool,
    pub stream_options: Option<StreamOptions>,
    /// llama.cpp's: `false` asks it not to reuse its prompt cache.
    pub cache_prompt: Option<bool>,
}

/// The fields a request may carry and still be held to the benchmark's figures: what the
/// benchmark itself sends, and what changes nothing of the decoding's pace. Any other field
/// (log-probabilities, logit bias, guided decoding, tools, a seed, penalties, `min_tokens`,
/// `ignore_eos`, …) may slow decoding; such a request is served and metered but not judged.
pub const JUDGED_FIELDS: &[&str] = &[
    "model",
    "prompt",
    "messages",
    "max_tokens",
    "max_completion_tokens",
    "temperature",
    "top_p",
    "stop",
    "stream",
    "stream_options",
    "user",
];

/// A request the gateway does not serve: the field, and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Unsupported {
    pub field: &'static str,
    pub why: &'static str,
}

/// How many prompts a completion's `prompt` holds: a string or one flat list of token ids is
/// one; a list of strings or of token-id lists is one per element.
pub fn prompt_count(prompt: &Value) -> usize {
    match prompt {
        Value::Array(items) if items.iter().any(|i| i.is_string() || i.is_array()) => items.len(),
        _ => 1,
    }
}

/// Refuses what makes one request more than one sequence: several prompts, `n` or `best_of`
/// above 1, beam search. One request is one stream slot, one load and one `max_tokens`.
pub fn one_sequence(request: &Map<String, Value>) -> Result<(), Unsupported> {
    if request.get("prompt").is_some_and(|p| prompt_count(p) > 1) {
        return Err(Unsupported {
            field: "prompt",
            why: "one prompt per request: a string, or one list of token ids",
        });
    }
    for field in ["n", "best_of"] {
        if request
            .get(field)
            .is_some_and(|v| !v.is_null() && v.as_u64() != Some(1))
        {
            return Err(Unsupported {
                field,
                why: "one sequence per request: 1",
            });
        }
    }
    if request
        .get("use_beam_search")
        .is_some_and(|v| !v.is_null() && v != &Value::Bool(false))
    {
        return Err(Unsupported {
            field: "use_beam_search",
            why: "one sequence per request: no beam search",
        });
    }
    Ok(())
}

/// Whether a request asks for nothing beyond [`JUDGED_FIELDS`] (a field set to `null` is
/// not asked for).
pub fn judged(request: &Map<String, Value>) -> bool {
    request
        .iter()
        .all(|(key, value)| value.is_null() || JUDGED_FIELDS.contains(&key.as_str()))
}

/// Whether each allow-listed value a request sets is within its documented range:
/// `temperature` from 0 to 2, `top_p` above 0 and at most 1, `stop` a string or up to four,
/// `user` a string, `model` a string, `stream_options` an object. A request outside them is
/// still served (the engine decides), but never judged: what it asked was not measured.
pub fn in_documented_range(request: &Map<String, Value>) -> bool {
    let number_in = |field: &str, ok: fn(f64) -> bool| match request.get(field) {
        None | Some(Value::Null) => true,
        Some(v) => v.as_f64().is_some_and(ok),
    };
    let is = |field: &str, ok: fn(&Value) -> bool| {
        request.get(field).is_none_or(|v| v.is_null() || ok(v))
    };
    number_in("temperature", |t| (0.0..=2.0).contains(&t))
        && number_in("top_p", |p| p > 0.0 && p <= 1.0)
        && is("stop", |stop| match stop {
            Value::String(_) => true,
            Value::Array(items) => items.len() <= 4 && items.iter().all(Value::is_string),
            _ => false,
        })
        && is("user", Value::is_string)
        && is("model", Value::is_string)
        && is("stream_options", Value::is_object)
}

/// An upper bound on a request's prompt tokens that needs no tokenizer, for plain text: a
/// text prompt's UTF-8 bytes (a token is at least a byte) or a token list's length; a chat's
/// messages of `role`, text `content` and `name` only, their text in bytes plus 64 a message
/// for the chat template. `None` for anything else (no prompt nor messages, a message with
/// images, tool calls or other parts, whose tokens its bytes do not bound).
pub fn prompt_bound(request: &Map<String, Value>) -> Option<u64> {
    if let Some(prompt) = request.get("prompt") {
        return match prompt {
            Value::String(text) => Some(text.len() as u64),
            Value::Array(items) => match items.as_slice() {
                [Value::String(text)] => Some(text.len() as u64),
                [Value::Array(tokens)] => Some(tokens.len() as u64),
                _ if items.iter().all(Value::is_u64) => Some(items.len() as u64),
                _ => None,
            },
            _ => None,
        };
    }
    let messages = request.get("messages")?.as_array()?;
    let mut bound: u64 = 0;
    for message in messages {
        let message = message.as_object()?;
        let mut text = 64u64;
        for (key, value) in message {
            match (key.as_str(), value) {
                ("role", Value::String(_)) => {}
                ("content" | "name", Value::String(part)) => text += part.len() as u64,
                _ => return None,
            }
        }
        bound = bound.saturating_add(text);
    }
    Some(bound)
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;
    use serde_json::json;

    fn object(value: Value) -> Map<String, Value> {
        value.as_object().unwrap().clone()
    }

    #[test]
    fn one_request_is_one_sequence() {
        for ok in [
            json!({"prompt": "x"}),
            json!({"prompt": [1, 2, 3]}),
            json!({"prompt": ["x"]}),
            json!({"prompt": [[1, 2]]}),
            json!({"messages": [{"role": "user", "content": "x"}], "n": 1, "best_of": null}),
            json!({"prompt": "x", "use_beam_search": false}),
        ] {
            assert_eq!(one_sequence(&object(ok.clone())), Ok(()), "{ok}");
        }
        for (bad, field) in [
            (json!({"prompt": ["a", "b"]}), "prompt"),
            (json!({"prompt": [[1], [2]]}), "prompt"),
            (json!({"prompt": "x", "n": 2}), "n"),
            (json!({"prompt": "x", "best_of": 3}), "best_of"),
            (
                json!({"prompt": "x", "use_beam_search": true}),
                "use_beam_search",
            ),
        ] {
            assert_eq!(
                one_sequence(&object(bad.clone())).unwrap_err().field,
                field,
                "{bad}"
            );
        }
    }

    #[test]
    fn only_what_the_benchmark_sends_is_judged() {
        assert!(judged(&object(json!({
            "model": "m", "prompt": "x", "max_tokens": 8, "temperature": 0, "stream": true,
            "stream_options": {"include_usage": true}, "logprobs": null,
        }))));
        for slow in [
            json!({"logit_bias": {"1": 5}}),
            json!({"seed": 1}),
            json!({"min_tokens": 10, "ignore_eos": true}),
            json!({"tools": [], "tool_choice": "required"}),
            json!({"logprobs": true}),
            json!({"response_format": {"type": "json_object"}}),
            json!({"bad_words": ["x"]}),
        ] {
            assert!(!judged(&object(slow.clone())), "{slow}");
        }
    }

    #[test]
    fn values_outside_their_documented_range_are_not_judged() {
        assert!(in_documented_range(&object(json!({
            "model": "m", "temperature": 2, "top_p": 1, "stop": ["a", "b", "c", "d"],
            "user": "u", "stream_options": {}, "logprobs": null,
        }))));
        for out in [
            json!({"temperature": 2.5}),
            json!({"temperature": -1}),
            json!({"temperature": "hot"}),
            json!({"top_p": 0}),
            json!({"top_p": 1.5}),
            json!({"stop": ["a", "b", "c", "d", "e"]}),
            json!({"stop": [1]}),
            json!({"user": 7}),
            json!({"model": ["m"]}),
            json!({"stream_options": true}),
        ] {
            assert!(!in_documented_range(&object(out.clone())), "{out}");
        }
    }

    #[test]
    fn a_prompt_is_bounded_without_a_tokenizer() {
        assert_eq!(prompt_bound(&object(json!({"prompt": "héllo"}))), Some(6));
        assert_eq!(prompt_bound(&object(json!({"prompt": [1, 2, 3]}))), Some(3));
        assert_eq!(prompt_bound(&object(json!({"prompt": [[1, 2]]}))), Some(2));
        assert_eq!(prompt_bound(&object(json!({"prompt": ["abc"]}))), Some(3));
        let chat = json!({"messages": [
            {"role": "system", "content": "ab"},
            {"role": "user", "content": "xyz", "name": "me"},
        ]});
        assert_eq!(prompt_bound(&object(chat)), Some(64 + 2 + 64 + 3 + 2));
        assert_eq!(prompt_bound(&object(json!({"model": "m"}))), None);
        // Parts, images and tool calls: their bytes bound nothing.
        for other in [
            json!({"messages": [{"role": "user", "content": [{"type": "image_url", "image_url": {"url": "https://x/y.png"}}]}]}),
            json!({"messages": [{"role": "assistant", "content": "", "tool_calls": [{"id": "1"}]}]}),
            json!({"messages": ["not an object"]}),
            json!({"prompt": {"not": "text"}}),
        ] {
            assert_eq!(prompt_bound(&object(other.clone())), None, "{other}");
        }
    }
}
