use openai::{Chunk, SseDecoder, SseEvent};

use super::stream::chunk_tokens;
use super::*;
use crate::engine::Chunks;
use serde_json::json;

/// [`chunk_tokens`] of a chunk written as JSON.
fn tokens(
    chunk: &Value,
    counted: &mut u64,
    max_tokens: u64,
    timeline: &mut Timeline,
) -> Result<u64, String> {
    let text = chunk.to_string();
    chunk_tokens(
        &Chunk::parse(&text).unwrap(),
        counted,
        max_tokens,
        timeline,
        Chunks::Text,
    )
}

fn reference(name: &str) -> String {
    std::fs::read_to_string(format!(
        "{}/testdata/vllm/{name}",
        env!("CARGO_MANIFEST_DIR")
    ))
    .unwrap()
}

/// Decodes a captured stream as the client does, byte by byte split at every read size.
fn decode(text: &str) -> (Timeline, Vec<u64>) {
    let mut timeline = Timeline::default();
    let mut previous = 0;
    let mut counts = Vec::new();
    let mut decoder = SseDecoder::new();
    for piece in text.as_bytes().chunks(7) {
        for event in decoder.feed(piece) {
            match event {
                SseEvent::Done => timeline.completed = true,
                SseEvent::TooLong { .. } => panic!("a capture line is too long"),
                SseEvent::Data(data) => {
                    let chunk = Chunk::parse(&data).unwrap();
                    let n = chunk_tokens(&chunk, &mut previous, 1000, &mut timeline, Chunks::Text)
                        .unwrap();
                    counts.push(n);
                }
            }
        }
    }
    (timeline, counts)
}

#[test]
fn continuous_usage_counts_tokens_from_usage() {
    let (timeline, counts) = decode(&reference("completions-stream-continuous-usage.sse.txt"));
    assert!(timeline.completed && timeline.saw_usage);
    assert_eq!(timeline.prompt_tokens, Some(9));
    // Six token chunks of one token each, then the usage-only chunk carries none.
    assert_eq!(counts, vec![1, 1, 1, 1, 1, 1, 0]);
}

#[test]
fn include_usage_only_falls_back_to_chunks_with_text() {
    let (timeline, counts) = decode(&reference("completions-stream-include-usage.sse.txt"));
    assert!(timeline.completed);
    assert!(!timeline.saw_usage, "usage came only in the final chunk");
    assert_eq!(
        timeline.prompt_tokens,
        Some(9),
        "from the final usage chunk"
    );
    // Text chunks count one each; the final usage chunk (6 in all) adds nothing.
    assert_eq!(counts, vec![1, 1, 1, 1, 1, 1, 0]);
}

#[test]
fn the_chat_role_chunk_carries_no_token() {
    let (timeline, counts) = decode(&reference("chat-completions-stream.sse.txt"));
    assert!(timeline.completed && timeline.saw_usage);
    assert_eq!(timeline.prompt_tokens, Some(14));
    assert_eq!(counts[0], 0, "the role-only chunk");
    assert_eq!(counts.iter().sum::<u64>(), 5);
}

#[test]
fn a_chunk_with_several_tokens_counts_them_all() {
    let mut timeline = Timeline::default();
    let mut previous = 0;
    let chunk = |n: u64| serde_json::json!({"choices": [{"text": "abc"}], "usage": {"prompt_tokens": 3, "completion_tokens": n}});
    assert_eq!(tokens(&chunk(1), &mut previous, 8, &mut timeline), Ok(1));
    assert_eq!(tokens(&chunk(4), &mut previous, 8, &mut timeline), Ok(3));
    assert_eq!(tokens(&chunk(4), &mut previous, 8, &mut timeline), Ok(0));
}

#[test]
fn claims_beyond_max_tokens_or_backwards_are_refused() {
    let chunk = |n: u64| serde_json::json!({"choices": [{"text": "a"}], "usage": {"prompt_tokens": 3, "completion_tokens": n}});
    let final_usage = |n: u64| serde_json::json!({"choices": [], "usage": {"prompt_tokens": 3, "completion_tokens": n}});
    let mut timeline = Timeline::default();
    let mut counted = 0;
    assert_eq!(tokens(&chunk(3), &mut counted, 4, &mut timeline), Ok(3));
    let over = tokens(&chunk(6), &mut counted, 4, &mut timeline).unwrap_err();
    assert!(
        over.contains("claimed 6 tokens") && over.contains("max_tokens 4"),
        "{over}"
    );
    let back = tokens(&chunk(2), &mut counted, 4, &mut timeline).unwrap_err();
    assert!(back.contains("went backwards"), "{back}");
    let disagree = tokens(&final_usage(4), &mut counted, 4, &mut timeline).unwrap_err();
    assert!(disagree.contains("final usage says 4"), "{disagree}");
    assert_eq!(
        tokens(&final_usage(3), &mut counted, 4, &mut timeline),
        Ok(0)
    );
    // Without continuous usage, text chunks count one each, capped all the same.
    let mut timeline = Timeline::default();
    let mut counted = 0;
    let text = serde_json::json!({"choices": [{"text": "a"}]});
    assert_eq!(tokens(&text, &mut counted, 1, &mut timeline), Ok(1));
    assert!(tokens(&text, &mut counted, 1, &mut timeline).is_err());
}

#[test]
fn error_bodies_give_their_message() {
    let body = reference("error-max-tokens-too-large.json");
    let message = error_message(reqwest::StatusCode::BAD_REQUEST, body.as_bytes());
    assert!(
        message.starts_with("HTTP 400 Bad Request: max_tokens=100000 cannot be greater"),
        "{message}"
    );
    let huge = format!(
        "{{\"error\": {{\"message\": \"{}\"}}}}",
        "x".repeat(100_000)
    );
    let message = error_message(reqwest::StatusCode::BAD_REQUEST, huge.as_bytes());
    assert!(message.len() < 400 && message.ends_with(bounds::CUT_MARKER));
}

#[test]
fn the_other_captures_parse() {
    let models: Value = serde_json::from_str(&reference("v1-models.json")).unwrap();
    assert_eq!(models["data"][0]["max_model_len"], 1024);
    let version: Value = serde_json::from_str(&reference("version.json")).unwrap();
    assert_eq!(version["version"], "0.32.0");
    let tokens: Value = serde_json::from_str(&reference("tokenize.json")).unwrap();
    assert_eq!(tokens["count"], 20);
    let nonstream: Value = serde_json::from_str(&reference("completions-nonstream.json")).unwrap();
    assert_eq!(nonstream["usage"]["completion_tokens"], 4);
}

/// llama.cpp sends one chunk per token: a token that renders as nothing comes as empty text,
/// and counts; the last chunk (a finish reason and the final usage) adds nothing when the
/// chunks were all there, and the usage is a final one, not running usage.
#[test]
fn one_chunk_per_token_counts_empty_text_and_checks_the_final_usage() {
    let mut timeline = Timeline::default();
    let mut counted = 0;
    let mut count = |chunk: Value, timeline: &mut Timeline| {
        let text = chunk.to_string();
        chunk_tokens(
            &Chunk::parse(&text).unwrap(),
            &mut counted,
            100,
            timeline,
            Chunks::PerToken,
        )
        .unwrap()
    };
    let token =
        |text: &str| json!({"choices": [{"text": text, "index": 0, "finish_reason": null}]});
    assert_eq!(count(token("a"), &mut timeline), 1);
    assert_eq!(count(token(""), &mut timeline), 1);
    assert_eq!(count(token("b"), &mut timeline), 1);
    let last = json!({"choices": [{"text": "", "index": 0, "finish_reason": "length"}],
        "usage": {"completion_tokens": 3, "prompt_tokens": 8}});
    assert_eq!(count(last, &mut timeline), 0);
    assert!(!timeline.saw_usage);
    assert_eq!(
        timeline.final_usage,
        Some(FinalUsage {
            completion_tokens: 3,
            added: 0
        })
    );
    // Counted by text, the empty one would be missing, and the final usage would add it.
    let mut timeline = Timeline::default();
    let mut counted = 0;
    for text in ["a", "", "b"] {
        let chunk = token(text).to_string();
        chunk_tokens(
            &Chunk::parse(&chunk).unwrap(),
            &mut counted,
            100,
            &mut timeline,
            Chunks::Text,
        )
        .unwrap();
    }
    assert_eq!(counted, 2);
}

/// TGI sends one chunk per token with `finish_reason: ""` until its last, which carries the
/// last token with the finish reason — and, for a completion, the final usage; a chat's usage
/// comes in a chunk of its own. Every token counts, and the usage adds nothing.
#[test]
fn tgi_s_last_chunk_carries_its_last_token() {
    let count_all = |chunks: &[Value]| {
        let (mut timeline, mut counted) = (Timeline::default(), 0);
        let counts: Vec<u64> = chunks
            .iter()
            .map(|chunk| {
                let text = chunk.to_string();
                chunk_tokens(
                    &Chunk::parse(&text).unwrap(),
                    &mut counted,
                    100,
                    &mut timeline,
                    Chunks::PerTokenToTheEnd,
                )
                .unwrap()
            })
            .collect();
        (counts, timeline.final_usage)
    };
    let token = |text: &str| {
        json!({"object": "text_completion", "id": "", "choices": [
            {"index": 0, "text": text, "logprobs": null, "finish_reason": ""}]})
    };
    let usage = json!({"prompt_tokens": 5, "completion_tokens": 3, "total_tokens": 8});
    let last = json!({"object": "text_completion", "id": "", "choices": [
        {"index": 0, "text": "c", "logprobs": null, "finish_reason": "length"}], "usage": usage});
    let ended = Some(FinalUsage {
        completion_tokens: 3,
        added: 0,
    });
    assert_eq!(
        count_all(&[token("a"), token(""), last]),
        (vec![1, 1, 1], ended)
    );
    let chat = |content: &str, finish: Value| {
        json!({"object": "chat.completion.chunk", "choices": [{"index": 0,
            "delta": {"role": "assistant", "content": content}, "finish_reason": finish}],
            "usage": null})
    };
    let usage_only = json!({"choices": [], "usage": usage});
    assert_eq!(
        count_all(&[
            chat("a", Value::Null),
            chat("b", Value::Null),
            chat("", json!("stop")),
            usage_only
        ]),
        (vec![1, 1, 1, 0], ended)
    );
    // Read as llama.cpp's, the last token would be missing and the usage would add it.
    let (mut timeline, mut counted) = (Timeline::default(), 0);
    for chunk in [token("a"), token("b")] {
        let text = chunk.to_string();
        let parsed = Chunk::parse(&text).unwrap();
        chunk_tokens(&parsed, &mut counted, 100, &mut timeline, Chunks::PerToken).unwrap();
    }
    assert_eq!(counted, 2, "an empty finish reason is not the end");
}

/// vLLM's and SGLang's running usage is running usage even on a chunk that ends the answer: a
/// short answer's only chunk (several tokens, the finish reason and the usage) still shows the
/// server sends it, as the preflight probe must learn.
#[test]
fn running_usage_on_the_only_chunk_of_a_short_answer_is_seen() {
    let (mut timeline, mut counted) = (Timeline::default(), 0);
    let only = json!({"choices": [{"index": 0, "text": "abcd", "finish_reason": "length"}],
        "usage": {"prompt_tokens": 5, "completion_tokens": 4, "total_tokens": 9}});
    let text = only.to_string();
    let tokens = chunk_tokens(
        &Chunk::parse(&text).unwrap(),
        &mut counted,
        4,
        &mut timeline,
        Chunks::Text,
    )
    .unwrap();
    assert_eq!(tokens, 4);
    assert!(timeline.saw_usage);
    assert_eq!(timeline.final_usage, None);
}
