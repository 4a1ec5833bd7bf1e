//! `/tokenize`: a prompt's (or chat's) tokens as the engine counts them, in the dialect's
//! shape (vLLM's count and tokens; llama.cpp's tokens of `content`; TGI's list of `inputs`'
//! tokens; SGLang's as vLLM's without `token_strs`, `python/sglang/srt/entrypoints/openai/
//! protocol.py`'s `TokenizeResponse`).

use actix_web::{HttpResponse, post, web};
use serde::{Deserialize, Serialize};

use openai::request::Message;

use super::{Refusal, State, chat_text, check_model};
use crate::dialect::{llamacpp, tgi};
use crate::profile::Dialect;
use crate::tokenizer;

#[derive(Debug, Deserialize)]
struct TokenizeRequest {
    model: Option<String>,
    prompt: Option<String>,
    messages: Option<Vec<Message>>,
    /// llama.cpp's name for the text.
    content: Option<String>,
    /// TGI's name for the text.
    inputs: Option<String>,
}

#[derive(Serialize)]
struct TokenizeResponse {
    count: usize,
    max_model_len: usize,
    tokens: Vec<u32>,
    /// vLLM's `null`; SGLang has no such field.
    #[serde(skip_serializing_if = "Option::is_none")]
    token_strs: Option<Option<()>>,
}

#[post("/tokenize")]
pub(super) async fn tokenize(
    state: web::Data<State>,
    body: web::Json<TokenizeRequest>,
) -> Result<HttpResponse, Refusal> {
    match state.profile.dialect {
        Dialect::LlamaCpp => {
            let text = body.content.as_deref().unwrap_or_default();
            return Ok(HttpResponse::Ok().json(llamacpp::tokenized(&tokenizer::encode(text))));
        }
        Dialect::Tgi => {
            let text = body.inputs.as_deref().unwrap_or_default();
            return Ok(HttpResponse::Ok().json(tgi::tokenized(&tokenizer::encode(text))));
        }
        Dialect::Sglang | Dialect::Vllm => {}
    }
    check_model(&state, body.model.as_deref())?;
    let text = match (&body.prompt, &body.messages) {
        (Some(prompt), _) => prompt.clone(),
        (None, Some(messages)) => chat_text(messages),
        (None, None) => {
            return Err(Refusal::bad(
                "Either prompt or messages must be provided.".to_owned(),
                "prompt",
            ));
        }
    };
    let tokens = tokenizer::encode(&text);
    Ok(HttpResponse::Ok().json(TokenizeResponse {
        count: tokens.len(),
        max_model_len: state.profile.max_model_len,
        tokens,
        token_strs: (state.profile.dialect == Dialect::Vllm).then_some(None),
    }))
}
