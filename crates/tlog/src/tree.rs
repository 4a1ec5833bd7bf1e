//! RFC 9162 Merkle tree hashing over stored complete subtrees.
//!
//! A log stores, once and never again, the hash of every complete subtree: node `(level,
//! index)` covers leaves `[index·2^level, (index+1)·2^level)` (Go's tlog layout). Appending a
//! leaf stores its hash and the hashes of the subtrees it completes; roots and proofs for any
//! size are then made of O(log n) stored hashes. Functions read stored hashes through
//! [`Hashes`]; their reads depend only on the sizes and indexes asked about, never on hash
//! values, so a caller whose storage is async runs a function once with a [`Recorder`] to learn
//! what to read, reads it in one go, and runs it again over what it read ([`Known`]).

use std::collections::HashMap;

use sha2::{Digest, Sha256};

/// A SHA-256 hash.
pub type Hash = [u8; 32];

/// A complete subtree: `level` 0 is a leaf.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct NodeId {
    pub level: u8,
    pub index: u64,
}

impl NodeId {
    pub fn new(level: u8, index: u64) -> Self {
        Self { level, index }
    }
}

/// Reads stored subtree hashes.
pub trait Hashes {
    fn hash(&mut self, node: NodeId) -> Hash;
}

/// Records which stored hashes a function reads (and answers zeros).
#[derive(Debug, Default)]
pub struct Recorder {
    pub reads: Vec<NodeId>,
}

impl Hashes for Recorder {
    fn hash(&mut self, node: NodeId) -> Hash {
        if !self.reads.contains(&node) {
            self.reads.push(node);
        }
        [0; 32]
    }
}

/// Answers from hashes read beforehand; remembers any it was asked for and did not have.
#[derive(Debug)]
pub struct Known<'a> {
    hashes: &'a HashMap<NodeId, Hash>,
    pub missing: Vec<NodeId>,
}

impl<'a> Known<'a> {
    pub fn new(hashes: &'a HashMap<NodeId, Hash>) -> Self {
        Self {
            hashes,
            missing: Vec::new(),
        }
    }
}

impl Hashes for Known<'_> {
    fn hash(&mut self, node: NodeId) -> Hash {
        match self.hashes.get(&node) {
            Some(hash) => *hash,
            None => {
                self.missing.push(node);
                [0; 32]
            }
        }
    }
}

/// The hash of a leaf: SHA-256(0x00 ‖ leaf).
pub fn leaf_hash(leaf: &[u8]) -> Hash {
    let mut hasher = Sha256::new();
    hasher.update([0x00]);
    hasher.update(leaf);
    hasher.finalize().into()
}

/// The hash of an interior node: SHA-256(0x01 ‖ left ‖ right).
pub fn node_hash(left: &Hash, right: &Hash) -> Hash {
    let mut hasher = Sha256::new();
    hasher.update([0x01]);
    hasher.update(left);
    hasher.update(right);
    hasher.finalize().into()
}

/// The root of the empty tree: SHA-256 of nothing.
pub fn empty_root() -> Hash {
    Sha256::digest([]).into()
}

/// The largest power of two strictly below `n` (n ≥ 2).
fn split(n: u64) -> u64 {
    1 << (63 - (n - 1).leading_zeros())
}

/// The hashes to store when the leaf with hash `leaf` is appended at `index`: its own and
/// those of the subtrees it completes (reading their left siblings).
pub fn append(index: u64, leaf: Hash, hashes: &mut dyn Hashes) -> Vec<(NodeId, Hash)> {
    let mut stored = vec![(NodeId::new(0, index), leaf)];
    let (mut level, mut at, mut hash) = (0u8, index, leaf);
    while at & 1 == 1 {
        let left = hashes.hash(NodeId::new(level, at - 1));
        hash = node_hash(&left, &hash);
        level += 1;
        at >>= 1;
        stored.push((NodeId::new(level, at), hash));
    }
    stored
}

/// MTH(D[lo:hi]) for a range of the RFC's recursion (`lo` aligned to its left subtrees).
fn subtree(lo: u64, hi: u64, hashes: &mut dyn Hashes) -> Hash {
    let n = hi - lo;
    if n.is_power_of_two() && lo.is_multiple_of(n) {
        return hashes.hash(NodeId::new(n.trailing_zeros() as u8, lo / n));
    }
    let k = split(n);
    let left = subtree(lo, lo + k, hashes);
    let right = subtree(lo + k, hi, hashes);
    node_hash(&left, &right)
}

/// The root hash of the first `size` leaves.
pub fn root(size: u64, hashes: &mut dyn Hashes) -> Hash {
    if size == 0 {
        return empty_root();
    }
    subtree(0, size, hashes)
}

/// RFC 9162 PATH(index, D[0:size]): the inclusion proof of leaf `index` in the tree of
/// `size` leaves. `None` when `index >= size`.
pub fn inclusion_proof(index: u64, size: u64, hashes: &mut dyn Hashes) -> Option<Vec<Hash>> {
    if index >= size {
        return None;
    }
    let mut proof = Vec::new();
    path(index, 0, size, hashes, &mut proof);
    Some(proof)
}

fn path(m: u64, lo: u64, hi: u64, hashes: &mut dyn Hashes, proof: &mut Vec<Hash>) {
    let n = hi - lo;
    if n <= 1 {
        return;
    }
    let k = split(n);
    if m < k {
        path(m, lo, lo + k, hashes, proof);
        proof.push(subtree(lo + k, hi, hashes));
    } else {
        path(m - k, lo + k, hi, hashes, proof);
        proof.push(subtree(lo, lo + k, hashes));
    }
}

/// RFC 9162 PROOF(first, D[0:second]): that the tree of `second` leaves extends the tree of
/// `first`. Empty when `first` is 0 or equals `second`; `None` when `first > second`.
pub fn consistency_proof(first: u64, second: u64, hashes: &mut dyn Hashes) -> Option<Vec<Hash>> {
    if first > second {
        return None;
    }
    let mut proof = Vec::new();
    if first > 0 && first < second {
        subproof(first, 0, second, true, hashes, &mut proof);
    }
    Some(proof)
}

fn subproof(m: u64, lo: u64, hi: u64, whole: bool, hashes: &mut dyn Hashes, proof: &mut Vec<Hash>) {
    let n = hi - lo;
    if m == n {
        if !whole {
            proof.push(subtree(lo, hi, hashes));
        }
        return;
    }
    let k = split(n);
    if m <= k {
        subproof(m, lo, lo + k, whole, hashes, proof);
        proof.push(subtree(lo + k, hi, hashes));
    } else {
        subproof(m - k, lo + k, hi, false, hashes, proof);
        proof.push(subtree(lo, lo + k, hashes));
    }
}

/// RFC 9162 §2.1.3.2: whether `proof` shows the leaf with hash `leaf` at `index` in the tree
/// of `size` leaves whose root is `root`.
pub fn verify_inclusion(leaf: &Hash, index: u64, size: u64, proof: &[Hash], root: &Hash) -> bool {
    if index >= size {
        return false;
    }
    let (mut f, mut s) = (index, size - 1);
    let mut r = *leaf;
    for p in proof {
        if s == 0 {
            return false;
        }
        if f & 1 == 1 || f == s {
            r = node_hash(p, &r);
            while f & 1 == 0 && f != 0 {
                f >>= 1;
                s >>= 1;
            }
        } else {
            r = node_hash(&r, p);
        }
        f >>= 1;
        s >>= 1;
    }
    s == 0 && r == *root
}

/// RFC 9162 §2.1.4.2: whether `proof` shows that the tree of `second` leaves (root
/// `second_root`) extends the tree of `first` leaves (root `first_root`).
pub fn verify_consistency(
    first: u64,
    second: u64,
    proof: &[Hash],
    first_root: &Hash,
    second_root: &Hash,
) -> bool {
    if first > second {
        return false;
    }
    if first == 0 {
        return proof.is_empty() && *first_root == empty_root();
    }
    if first == second {
        return proof.is_empty() && first_root == second_root;
    }
    let Some((head, rest)) = proof.split_first() else {
        return false;
    };
    let mut path: Vec<&Hash> = Vec::with_capacity(proof.len() + 1);
    if first.is_power_of_two() {
        path.push(first_root);
    }
    path.push(head);
    path.extend(rest);
    let (mut f, mut s) = (first - 1, second - 1);
    while f & 1 == 1 {
        f >>= 1;
        s >>= 1;
    }
    let (mut fr, mut sr) = (*path[0], *path[0]);
    for c in &path[1..] {
        if s == 0 {
            return false;
        }
        if f & 1 == 1 || f == s {
            fr = node_hash(c, &fr);
            sr = node_hash(c, &sr);
            while f & 1 == 0 && f != 0 {
                f >>= 1;
                s >>= 1;
            }
        } else {
            sr = node_hash(&sr, c);
        }
        f >>= 1;
        s >>= 1;
    }
    fr == *first_root && sr == *second_root && s == 0
}

/// The complete subtrees of a tree's first leaves, largest first: what a monitor keeps to
/// extend a tree it has checked without holding every leaf.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Frontier {
    size: u64,
    /// `(level, hash)`, levels strictly decreasing.
    subtrees: Vec<(u8, Hash)>,
}

impl Frontier {
    /// Rebuilds a frontier from its size and its subtrees' hashes, largest first; `None` when
    /// their number does not match the size.
    pub fn from_parts(size: u64, hashes: Vec<Hash>) -> Option<Self> {
        let levels: Vec<u8> = (0..64u8).rev().filter(|l| size >> l & 1 == 1).collect();
        (levels.len() == hashes.len()).then(|| Self {
            size,
            subtrees: levels.into_iter().zip(hashes).collect(),
        })
    }

    pub fn size(&self) -> u64 {
        self.size
    }

    /// The subtrees' hashes, largest first.
    pub fn hashes(&self) -> Vec<Hash> {
        self.subtrees.iter().map(|(_, h)| *h).collect()
    }

    pub fn push(&mut self, leaf: Hash) {
        let mut node = (0u8, leaf);
        while let Some(&(level, left)) = self.subtrees.last() {
            if level != node.0 {
                break;
            }
            self.subtrees.pop();
            node = (level + 1, node_hash(&left, &node.1));
        }
        self.subtrees.push(node);
        self.size += 1;
    }

    pub fn root(&self) -> Hash {
        let mut nodes = self.subtrees.iter().rev();
        let Some(&(_, mut root)) = nodes.next() else {
            return empty_root();
        };
        for (_, left) in nodes {
            root = node_hash(left, &root);
        }
        root
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A log held in memory: every stored hash.
    fn build(leaves: u64) -> HashMap<NodeId, Hash> {
        let mut stored = HashMap::new();
        for i in 0..leaves {
            let hash = leaf_hash(&i.to_be_bytes());
            for (node, h) in append(i, hash, &mut Known::new(&stored.clone())) {
                assert!(
                    stored.insert(node, h).is_none(),
                    "a stored hash never changes"
                );
            }
        }
        stored
    }

    /// MTH written straight from RFC 9162 §2.1.1, over the leaves themselves.
    fn mth(leaves: &[Vec<u8>]) -> Hash {
        match leaves.len() {
            0 => empty_root(),
            1 => leaf_hash(&leaves[0]),
            n => {
                let k = split(n as u64) as usize;
                node_hash(&mth(&leaves[..k]), &mth(&leaves[k..]))
            }
        }
    }

    #[test]
    fn roots_match_the_rfc_definition_and_the_frontier() {
        let stored = build(70);
        let leaves: Vec<Vec<u8>> = (0..70u64).map(|i| i.to_be_bytes().to_vec()).collect();
        let mut frontier = Frontier::default();
        for size in 0..=70u64 {
            let mut known = Known::new(&stored);
            let r = root(size, &mut known);
            assert!(known.missing.is_empty());
            assert_eq!(r, mth(&leaves[..size as usize]), "size {size}");
            assert_eq!(frontier.root(), r, "frontier at {size}");
            let rebuilt = Frontier::from_parts(size, frontier.hashes()).unwrap();
            assert_eq!(rebuilt, frontier);
            if size < 70 {
                frontier.push(leaf_hash(&leaves[size as usize]));
            }
        }
    }

    #[test]
    fn proofs_verify_and_wrong_ones_do_not() {
        let stored = build(33);
        for size in 1..=33u64 {
            let r = root(size, &mut Known::new(&stored));
            for index in 0..size {
                let proof = inclusion_proof(index, size, &mut Known::new(&stored)).unwrap();
                let leaf = leaf_hash(&index.to_be_bytes());
                assert!(verify_inclusion(&leaf, index, size, &proof, &r));
                assert!(!verify_inclusion(&leaf, index + 1, size, &proof, &r));
            }
            for first in 0..=size {
                let old = root(first, &mut Known::new(&stored));
                let proof = consistency_proof(first, size, &mut Known::new(&stored)).unwrap();
                assert!(verify_consistency(first, size, &proof, &old, &r));
                if first > 0 && first < size {
                    assert!(!verify_consistency(first, size, &proof[1..], &old, &r));
                    assert!(!verify_consistency(first, size, &proof, &r, &old));
                }
            }
        }
    }
}
