//! The transparency log: its latest signed checkpoint, the key that signs checkpoints,
//! consistency proofs between tree sizes, and its entries for monitors to replay. Inclusion
//! proofs of reports are at `GET /v1/reports/{id}/proof`.

pub mod checkpoint;
pub mod consistency;
pub mod entries;
pub mod status;
pub mod verifier_key;
