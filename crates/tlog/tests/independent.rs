//! The log's roots and proofs against RFC 9162's algorithms written afresh in Python
//! (`rfc9162.py`): trees of 1 to 300 leaves, every index, consistency between every pair of
//! sizes up to 64; and no proof survives a flipped bit in any element, root or leaf.

use std::collections::HashMap;
use std::io::Write;
use std::process::{Command, Stdio};

use serde_json::json;
use tlog::{Hash, Known, NodeId};

const LEAVES: u64 = 300;
const CONSISTENCY_UP_TO: u64 = 64;

struct Log {
    leaves: Vec<Vec<u8>>,
    stored: HashMap<NodeId, Hash>,
}

impl Log {
    /// Leaves of varied lengths, appended one by one as the server appends them.
    fn new(n: u64) -> Self {
        let mut log = Self {
            leaves: Vec::new(),
            stored: HashMap::new(),
        };
        for i in 0..n {
            let leaf: Vec<u8> = (0..(i % 7) * 13 + 1).map(|j| (i * 31 + j) as u8).collect();
            let hashes = tlog::append(i, tlog::leaf_hash(&leaf), &mut Known::new(&log.stored));
            for (node, hash) in hashes {
                assert!(log.stored.insert(node, hash).is_none(), "rewrote {node:?}");
            }
            log.leaves.push(leaf);
        }
        log
    }

    fn known(&self) -> Known<'_> {
        Known::new(&self.stored)
    }

    fn root(&self, size: u64) -> Hash {
        tlog::root(size, &mut self.known())
    }
}

fn python() -> String {
    std::env::var("GPUMARKET_TEST_PYTHON").unwrap_or_else(|_| "python3".to_owned())
}

#[test]
fn proofs_agree_with_an_independent_implementation_of_rfc_9162() {
    let log = Log::new(LEAVES);
    let roots: Vec<String> = (0..=LEAVES).map(|s| hex::encode(log.root(s))).collect();
    let inclusion: Vec<Vec<Vec<String>>> = (1..=LEAVES)
        .map(|size| {
            (0..size)
                .map(|index| {
                    let proof = tlog::inclusion_proof(index, size, &mut log.known()).unwrap();
                    proof.iter().map(hex::encode).collect()
                })
                .collect()
        })
        .collect();
    let mut consistency = Vec::new();
    for second in 1..=CONSISTENCY_UP_TO {
        for first in 1..second {
            let proof = tlog::consistency_proof(first, second, &mut log.known()).unwrap();
            let proof: Vec<String> = proof.iter().map(hex::encode).collect();
            consistency.push(json!({"first": first, "second": second, "proof": proof}));
        }
    }
    let leaves: Vec<String> = log.leaves.iter().map(hex::encode).collect();
    let input = json!({
        "leaves": leaves,
        "roots": roots,
        "inclusion": inclusion,
        "consistency": consistency,
    })
    .to_string();
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/rfc9162.py");
    let mut child = Command::new(python())
        .arg(script)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .expect("python3 runs");
    child
        .stdin
        .take()
        .unwrap()
        .write_all(input.as_bytes())
        .unwrap();
    let out = child.wait_with_output().unwrap();
    let said = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "the independent check disagrees: {said}"
    );
    assert!(
        said.starts_with("ok 301 roots, 45150 inclusion proofs, 2016 consistency proofs"),
        "{said}"
    );
}

/// Every hash with one bit flipped, a different bit in each byte.
fn flips(hash: &Hash) -> impl Iterator<Item = Hash> + '_ {
    (0..32).map(move |i| {
        let mut flipped = *hash;
        flipped[i] ^= 1 << (i % 8);
        flipped
    })
}

#[test]
fn a_flipped_bit_in_any_proof_element_root_or_leaf_is_refused() {
    let log = Log::new(CONSISTENCY_UP_TO);
    for size in 1..=CONSISTENCY_UP_TO {
        let root = log.root(size);
        for index in 0..size {
            let leaf = tlog::leaf_hash(&log.leaves[index as usize]);
            let proof = tlog::inclusion_proof(index, size, &mut log.known()).unwrap();
            assert!(tlog::verify_inclusion(&leaf, index, size, &proof, &root));
            for (i, element) in proof.iter().enumerate() {
                for flipped in flips(element) {
                    let mut bad = proof.clone();
                    bad[i] = flipped;
                    assert!(!tlog::verify_inclusion(&leaf, index, size, &bad, &root));
                }
            }
            for flipped in flips(&root) {
                assert!(!tlog::verify_inclusion(
                    &leaf, index, size, &proof, &flipped
                ));
            }
            for flipped in flips(&leaf) {
                assert!(!tlog::verify_inclusion(
                    &flipped, index, size, &proof, &root
                ));
            }
            // A leaf's own bytes with a bit flipped hash elsewhere.
            let mut bytes = log.leaves[index as usize].clone();
            bytes[0] ^= 0x80;
            let other = tlog::leaf_hash(&bytes);
            assert!(!tlog::verify_inclusion(&other, index, size, &proof, &root));
        }
        for first in 1..size {
            let old = log.root(first);
            let proof = tlog::consistency_proof(first, size, &mut log.known()).unwrap();
            assert!(tlog::verify_consistency(first, size, &proof, &old, &root));
            for (i, element) in proof.iter().enumerate() {
                for flipped in flips(element) {
                    let mut bad = proof.clone();
                    bad[i] = flipped;
                    assert!(
                        !tlog::verify_consistency(first, size, &bad, &old, &root),
                        "{first} -> {size}, element {i}"
                    );
                }
            }
            for flipped in flips(&old) {
                assert!(!tlog::verify_consistency(
                    first, size, &proof, &flipped, &root
                ));
            }
            for flipped in flips(&root) {
                assert!(!tlog::verify_consistency(
                    first, size, &proof, &old, &flipped
                ));
            }
        }
    }
}
