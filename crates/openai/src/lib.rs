//! The OpenAI-compatible wire format as vLLM speaks it, in one place: the request types the
//! simulator accepts and the gateway inspects, the streamed chunks and usage the harness and
//! the gateway read, and one bounded Server-Sent Events decoder and encoder. Nothing here
//! does I/O; everything read from an engine is bounded by the decoder's limit.

pub mod chunk;
pub mod request;
pub mod sse;

pub use chunk::{Chunk, Usage};
pub use sse::{EventRef, SseDecoder, SseEvent};
