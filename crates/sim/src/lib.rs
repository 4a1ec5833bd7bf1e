//! A simulated vLLM-compatible inference engine, for tests, demos and integrators without a
//! GPU: the HTTP surface of vLLM 0.32 (byte-compatible with what a real server prints), a
//! scheduler like vLLM's (continuous batching, chunked prefill, KV blocks with prefix caching,
//! queueing and preemption), and a performance model per profile.

mod dialect;
pub mod engine;
mod http;
pub mod profile;
pub mod tokenizer;

pub use engine::TimeScale;
pub use http::{SimServer, serve};
pub use profile::{Dialect, Profile};
