//! A streamed chunk (`chat.completion.chunk` or `text_completion`), and a whole answer's
//! usage, parsed into borrowed typed structs: only the fields that say what was generated are
//! read, everything else is skipped without being built.

use std::borrow::Cow;

use serde::Deserialize;
use serde::de::IgnoredAny;

/// What an engine says it spent: `completion_tokens` so far (running usage) or in all.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize)]
pub struct Usage {
    #[serde(default)]
    pub prompt_tokens: Option<u64>,
    #[serde(default)]
    pub completion_tokens: Option<u64>,
}

/// One chunk of a stream.
#[derive(Debug, Default, Deserialize)]
pub struct Chunk<'a> {
    #[serde(default, borrow)]
    pub choices: Option<Vec<Choice<'a>>>,
    #[serde(default)]
    pub usage: Option<Usage>,
    #[serde(default, borrow)]
    pub error: Option<ErrorField<'a>>,
}

/// One choice of a chunk: a completion's `text`, or a chat completion's `delta`.
#[derive(Debug, Default, Deserialize)]
pub struct Choice<'a> {
    #[serde(default, borrow)]
    pub text: Option<Cow<'a, str>>,
    #[serde(default, borrow)]
    pub delta: Option<Delta<'a>>,
    #[serde(default, borrow)]
    pub finish_reason: Option<Cow<'a, str>>,
}

/// What a chat chunk adds to the answer.
#[derive(Debug, Default, Deserialize)]
pub struct Delta<'a> {
    #[serde(default, borrow)]
    pub content: Option<Cow<'a, str>>,
    #[serde(default, borrow)]
    pub reasoning_content: Option<Cow<'a, str>>,
    /// What newer vLLM releases (and SGLang) call the reasoning.
    #[serde(default, borrow)]
    pub reasoning: Option<Cow<'a, str>>,
    #[serde(default)]
    pub tool_calls: Option<IgnoredAny>,
}

/// An error reported mid-stream: vLLM sends `{"error": {"message": …}}`; anything else in
/// that place is an error without a message.
#[derive(Debug, Deserialize)]
#[serde(untagged)]
pub enum ErrorField<'a> {
    Described {
        #[serde(default, borrow)]
        message: Option<Cow<'a, str>>,
    },
    Other(IgnoredAny),
}

impl Choice<'_> {
    /// Whether it ends the answer: a `finish_reason` that says something (TGI writes `""` on
    /// every chunk before its last).
    pub fn finishes(&self) -> bool {
        non_empty(self.finish_reason.as_ref())
    }

    /// Whether it carries answer text or a delta, empty or not.
    fn is_answer(&self) -> bool {
        self.text.is_some() || self.delta.is_some()
    }
}

fn non_empty(text: Option<&Cow<'_, str>>) -> bool {
    text.is_some_and(|t| !t.is_empty())
}

impl<'a> Chunk<'a> {
    /// Parses one event's data.
    pub fn parse(data: &'a str) -> Result<Self, serde_json::Error> {
        serde_json::from_str(data)
    }

    /// Whether the chunk has at least one choice.
    pub fn has_choices(&self) -> bool {
        self.choices.as_ref().is_some_and(|c| !c.is_empty())
    }

    /// Whether it carries a choice that is not the answer's end (no `finish_reason`): what
    /// an engine that sends one chunk per token (llama.cpp) sends for each token, text or not.
    pub fn has_unfinished_choice(&self) -> bool {
        self.choices
            .iter()
            .flatten()
            .any(|c| !c.finishes() && c.is_answer())
    }

    /// Whether it carries a choice with answer text or a delta, finishing or not: what an
    /// engine whose last token comes with the finish reason (TGI) sends for each token.
    pub fn has_answer_choice(&self) -> bool {
        self.choices.iter().flatten().any(Choice::is_answer)
    }

    /// Whether it carries answer text (`text` or `delta.content`): what the harness counts
    /// as a token when the engine gives no running usage.
    pub fn has_text(&self) -> bool {
        self.choices.iter().flatten().any(|c| {
            non_empty(c.text.as_ref())
                || non_empty(c.delta.as_ref().and_then(|d| d.content.as_ref()))
        })
    }

    /// Whether it carries any generated output: text, content, reasoning or tool calls.
    pub fn has_output(&self) -> bool {
        self.text_len() > 0
            || self
                .choices
                .iter()
                .flatten()
                .any(|c| c.delta.as_ref().is_some_and(|d| d.tool_calls.is_some()))
    }

    /// The UTF-8 bytes of text it carries: `text`, and a delta's `content`,
    /// `reasoning_content` and `reasoning`, over every choice. What a renter received as
    /// text; a chunk of none (an empty delta, `tool_calls: []`) carries 0.
    pub fn text_len(&self) -> usize {
        let len = |text: &Option<Cow<'_, str>>| text.as_ref().map_or(0, |t| t.len());
        self.choices
            .iter()
            .flatten()
            .map(|c| {
                len(&c.text)
                    + c.delta.as_ref().map_or(0, |d| {
                        len(&d.content) + len(&d.reasoning_content) + len(&d.reasoning)
                    })
            })
            .sum()
    }

    /// Nothing but usage: the final chunk `stream_options.include_usage` adds.
    pub fn is_usage_only(&self) -> bool {
        self.usage.is_some() && self.choices.as_ref().is_some_and(Vec::is_empty)
    }

    /// An error the engine reported in the stream, with its message when it gave one.
    pub fn error_message(&self) -> Option<&str> {
        match self.error.as_ref()? {
            ErrorField::Described { message } => Some(message.as_deref().unwrap_or("")),
            ErrorField::Other(_) => Some(""),
        }
    }
}

/// The usage of a whole (not streamed) answer, when it states both counts.
pub fn answer_usage(body: &[u8]) -> Option<(u64, u64)> {
    #[derive(Deserialize)]
    struct Answer {
        usage: Option<Usage>,
    }
    let usage = serde_json::from_slice::<Answer>(body).ok()?.usage?;
    Some((usage.prompt_tokens?, usage.completion_tokens?))
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn chunks_say_what_they_carry() {
        let role =
            Chunk::parse(r#"{"choices":[{"index":0,"delta":{"role":"assistant","content":""}}]}"#)
                .unwrap();
        assert!(role.has_choices() && !role.has_text() && !role.has_output());
        let text =
            Chunk::parse(r#"{"choices":[{"text":"a\"b","logprobs":null}],"usage":null}"#).unwrap();
        assert!(text.has_text() && text.usage.is_none());
        let reasoning =
            Chunk::parse(r#"{"choices":[{"delta":{"reasoning_content":"hm"}}]}"#).unwrap();
        assert!(!reasoning.has_text() && reasoning.has_output());
        let tools = Chunk::parse(r#"{"choices":[{"delta":{"tool_calls":[{"id":"x"}]}}]}"#).unwrap();
        assert!(tools.has_output() && tools.text_len() == 0);
        let texts = Chunk::parse(
            r#"{"choices":[{"text":"ab"},{"delta":{"content":"é","reasoning_content":"c","reasoning":"de","x":[1]}}],"extra":{"y":2}}"#,
        )
        .unwrap();
        assert_eq!(texts.text_len(), 2 + 2 + 1 + 2);
        assert_eq!(reasoning.text_len(), 2);
        assert_eq!(role.text_len(), 0);
        // A field the gateway reads, of the wrong type, makes the chunk unreadable; an
        // unknown one never does.
        for wrong in [
            r#"{"choices":[],"usage":"x"}"#,
            r#"{"choices":[{"text":5}]}"#,
            r#"{"choices":[{"delta":{"content":["a"]}}]}"#,
            r#"{"choices":"x"}"#,
            r#"{"choices":[],"usage":{"completion_tokens":-1}}"#,
        ] {
            assert!(Chunk::parse(wrong).is_err(), "{wrong}");
        }
        let usage = Chunk::parse(
            r#"{"choices":[],"usage":{"prompt_tokens":9,"completion_tokens":2,"total_tokens":11}}"#,
        )
        .unwrap();
        assert!(usage.is_usage_only());
        assert_eq!(usage.usage.unwrap().completion_tokens, Some(2));
        let failed = Chunk::parse(r#"{"error":{"message":"boom","code":500}}"#).unwrap();
        assert_eq!(failed.error_message(), Some("boom"));
        assert_eq!(
            Chunk::parse(r#"{"error":"x"}"#).unwrap().error_message(),
            Some("")
        );
        assert!(Chunk::parse("[1]").is_err());
    }

    #[test]
    fn an_answer_states_its_usage() {
        assert_eq!(
            answer_usage(br#"{"choices":[],"usage":{"prompt_tokens":3,"completion_tokens":4}}"#),
            Some((3, 4))
        );
        assert_eq!(answer_usage(br#"{"usage":{"prompt_tokens":3}}"#), None);
        assert_eq!(answer_usage(b"nonsense"), None);
    }
}
