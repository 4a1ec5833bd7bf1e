//! The provider's agent (`gpumarket agent`): the platform's hand on a provider's machine. It
//! is the provider's code on the provider's machine, so whatever it reports is the machine's
//! word, never a proof. It reads the machine and its GPUs' health ([`facts`], [`nvml`],
//! [`smi`]), long-polls what the machine must grant ([`desired`], [`run`]), makes and removes
//! booking accounts ([`accounts`]), and answers OpenSSH's `AuthorizedKeysCommand` from a local
//! cache ([`keys`]); it samples its GPUs into a ring buffer and uploads a run's window once
//! the run has measured ([`telemetry`]). It runs bookings' containers ([`containers`]) and
//! lets their renters' SSH logins into them ([`enter`]).

pub mod accounts;
mod booked;
pub mod containers;
pub mod desired;
pub mod enter;
pub mod facts;
pub mod keys;
pub mod nvml;
pub mod run;
pub mod smi;
pub mod telemetry;
