//! The transparency log's pure parts: RFC 9162 Merkle tree hashing over stored complete
//! subtrees (`tree`), inclusion and consistency proofs and their verification, and C2SP
//! checkpoints signed as C2SP signed notes (`note`). No I/O: storage reads hashes for it.

mod note;
mod tree;

pub use note::{Checkpoint, MAX_NOTE_BYTES, NoteVerifier, key_hash, open_note, signed_note};
pub use tree::{
    Frontier, Hash, Hashes, Known, NodeId, Recorder, append, consistency_proof, empty_root,
    inclusion_proof, leaf_hash, node_hash, root, verify_consistency, verify_inclusion,
};

#[derive(Debug, thiserror::Error)]
pub enum LogError {
    #[error("{0}")]
    Malformed(String),
    #[error("{0}")]
    BadSignature(String),
}
