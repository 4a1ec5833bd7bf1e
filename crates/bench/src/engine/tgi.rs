//! Text Generation Inference's dialect, written from its source (huggingface/
//! text-generation-inference at db931fcf): the queue gauge `tgi_queue_size`
//! (`backends/v3/src/queue.rs`), the batch gauge `tgi_batch_current_size`
//! (`backends/v3/src/backend.rs`), and the token histograms `tgi_request_input_length`
//! (`router/src/validation.rs`) and `tgi_request_generated_tokens` (`router/src/server.rs`),
//! recorded when a request is validated and when it ends: their sums are the token counters,
//! which therefore move only as requests end, never inside a measuring window. `/info`
//! (`router/src/lib.rs`, `Info`) carries the version; `/tokenize` takes `{"inputs": …}` and
//! answers the list of tokens (`TokenizeResponse`). Not checked against a real server: TGI does
//! not run on these machines (design/engines.md).

use serde_json::Value;

use super::{Chunks, CounterMoves, Field, Rules};

/// The name TGI's facts carry.
pub const NAME: &str = "tgi";

/// Where TGI states its version.
pub const INFO_PATH: &str = "/info";

/// One token per streamed chunk, the last token in the chunk that ends the answer, and no
/// running usage (`router/src/server.rs`: `stream_options` is not read by completions); token
/// counts only in histograms recorded as requests end.
pub const RULES: Rules = Rules {
    continuous_usage: false,
    chunks: Chunks::PerTokenToTheEnd,
    counter: CounterMoves::AtRequestEnd,
    cold_field: None,
};

/// The snapshot field a TGI metric feeds.
pub fn field(metric: &str) -> Option<Field> {
    Some(match metric {
        "tgi_batch_current_size" => Field::Running,
        "tgi_queue_size" => Field::Waiting,
        "tgi_request_input_length"
        | "tgi_request_input_length_sum"
        | "tgi_request_input_length_count"
        | "tgi_request_input_length_bucket" => Field::PromptTokens,
        "tgi_request_generated_tokens"
        | "tgi_request_generated_tokens_sum"
        | "tgi_request_generated_tokens_count"
        | "tgi_request_generated_tokens_bucket" => Field::GenerationTokens,
        _ => return None,
    })
}

/// `/info`'s `"version"`.
pub fn version(body: &[u8]) -> Option<String> {
    super::json_text(body, "version")
}

/// `{"inputs": …}`.
pub fn tokenize_request(prompt: &str) -> Value {
    serde_json::json!({ "inputs": prompt })
}

/// A list of `{id, text, start, stop}`: the count is its length.
pub fn token_count(body: &[u8]) -> Option<u64> {
    super::count_of(&serde_json::from_slice::<Value>(body).ok()?)
}

#[cfg(test)]
mod tests {
    use super::super::Dialect;

    #[test]
    fn tgi_is_picked_and_its_histograms_sums_are_its_token_counters() {
        let text = "# TYPE tgi_queue_size gauge\n\
            tgi_queue_size 2\n\
            # TYPE tgi_batch_current_size gauge\n\
            tgi_batch_current_size 4\n\
            # TYPE tgi_request_generated_tokens histogram\n\
            tgi_request_generated_tokens_bucket{le=\"64\"} 3\n\
            tgi_request_generated_tokens_bucket{le=\"+Inf\"} 5\n\
            tgi_request_generated_tokens_sum 640\n\
            tgi_request_generated_tokens_count 5\n\
            # TYPE tgi_request_input_length histogram\n\
            tgi_request_input_length_bucket{le=\"+Inf\"} 5\n\
            tgi_request_input_length_sum 1000\n\
            tgi_request_input_length_count 5\n";
        assert_eq!(Dialect::detect(text), Some(Dialect::Tgi));
        let snapshot = Dialect::Tgi.snapshot(text).unwrap();
        assert_eq!(snapshot.running, Some(4.0));
        assert_eq!(snapshot.waiting, Some(2.0));
        assert_eq!(snapshot.generation_tokens, Some(640.0));
        assert_eq!(snapshot.prompt_tokens, Some(1000.0));
        assert_eq!(
            super::version(br#"{"model_id": "m", "version": "3.3.6"}"#).as_deref(),
            Some("3.3.6")
        );
        assert_eq!(
            super::token_count(br#"[{"id":1,"text":"a","start":0,"stop":1}]"#),
            Some(1)
        );
        assert!(!Dialect::Tgi.checked_against_real_server());
    }
}
