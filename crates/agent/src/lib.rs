//! The provider's agent (`gpumarket agent`): the platform's hand on a provider's machine. It
//! is the provider's code on the provider's machine, so whatever it reports is the machine's
//! word, never a proof. This crate holds what it reads of the machine ([`facts`]); the
//! long-poll, accounts and keys come next (issue 56).

pub mod facts;
