//! Trust: verification runs, spot checks, signed reports, the transparency log, community
//! submissions, liveness.

pub mod community;
pub mod compare;
pub mod completion;
pub mod energy;
pub mod liveness;
pub mod physics;
pub mod preflight;
pub mod reports;
pub mod runs;
pub(crate) mod signing_key;
pub mod spot_checks;
pub mod transparency;
pub mod verification;

use std::sync::Arc;

use crate::{App, Config};

/// Trust's state: the report signing key, and the probes' permits.
#[derive(Debug)]
pub(crate) struct TrustState {
    signer: attest::KeyPair,
    /// Permits for liveness probes waiting for an answer (`max_probes_in_flight`).
    probing: Arc<tokio::sync::Semaphore>,
}

impl TrustState {
    pub(crate) fn new(config: &Config, signer: attest::KeyPair) -> Self {
        Self {
            signer,
            probing: Arc::new(tokio::sync::Semaphore::new(
                config.liveness.max_probes_in_flight.max(1) as usize,
            )),
        }
    }
}

impl App {
    /// The key reports, statements and checkpoints are signed with.
    pub(crate) fn signer(&self) -> &attest::KeyPair {
        &self.inner.trust.signer
    }
}
