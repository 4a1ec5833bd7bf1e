//! The KV cache as fixed-size blocks, with prefix caching: a full block is known by the hash
//! of its tokens and of every token before it, so sequences that share a prefix share blocks.
//! Blocks nobody holds stay cached until their space is needed (least recently freed first).

use std::collections::{HashMap, VecDeque};
use std::hash::{DefaultHasher, Hash, Hasher};

pub type BlockId = usize;

#[derive(Debug, Clone, Default)]
struct Block {
    refs: u32,
    hash: Option<u64>,
    /// Bumped whenever the block leaves the free queue, so stale queue entries are skipped.
    generation: u64,
}

#[derive(Debug)]
pub struct BlockPool {
    blocks: Vec<Block>,
    /// Blocks with no holder, oldest first: (id, generation when queued).
    free: VecDeque<(BlockId, u64)>,
    free_count: usize,
    cached: HashMap<u64, BlockId>,
}

/// The hash of a full block: chained over the previous block's hash.
pub fn block_hash(previous: Option<u64>, tokens: &[u32]) -> u64 {
    let mut hasher = DefaultHasher::new();
    previous.hash(&mut hasher);
    tokens.hash(&mut hasher);
    hasher.finish()
}

impl BlockPool {
    pub fn new(count: usize) -> Self {
        Self {
            blocks: vec![Block::default(); count],
            free: (0..count).map(|id| (id, 0)).collect(),
            free_count: count,
            cached: HashMap::new(),
        }
    }

    pub fn total(&self) -> usize {
        self.blocks.len()
    }

    /// Blocks that some sequence holds.
    pub fn used(&self) -> usize {
        self.blocks.len() - self.free_count
    }

    pub fn free(&self) -> usize {
        self.free_count
    }

    /// Takes a free block, evicting whatever it cached.
    pub fn allocate(&mut self) -> Option<BlockId> {
        while let Some((id, generation)) = self.free.pop_front() {
            let block = &mut self.blocks[id];
            if block.generation != generation || block.refs > 0 {
                continue;
            }
            if let Some(hash) = block.hash.take()
                && self.cached.get(&hash) == Some(&id)
            {
                self.cached.remove(&hash);
            }
            block.refs = 1;
            block.generation += 1;
            self.free_count -= 1;
            return Some(id);
        }
        None
    }

    /// The cached block holding `hash`, now held once more.
    pub fn reuse(&mut self, hash: u64) -> Option<BlockId> {
        let id = *self.cached.get(&hash)?;
        let block = &mut self.blocks[id];
        if block.refs == 0 {
            block.generation += 1;
            self.free_count -= 1;
        }
        block.refs += 1;
        Some(id)
    }

    /// Publishes a full block under `hash` so later sequences can share it.
    pub fn register(&mut self, id: BlockId, hash: u64) {
        if self.cached.contains_key(&hash) {
            return;
        }
        self.blocks[id].hash = Some(hash);
        self.cached.insert(hash, id);
    }

    /// Drops one hold on each block; a block nobody holds becomes free (and stays cached).
    pub fn release(&mut self, ids: &[BlockId]) {
        for &id in ids {
            let block = &mut self.blocks[id];
            debug_assert!(block.refs > 0, "releasing a free block");
            block.refs = block.refs.saturating_sub(1);
            if block.refs == 0 {
                self.free_count += 1;
                self.free.push_back((id, block.generation));
            }
        }
    }

    /// Forgets every cached prefix (`POST /reset_prefix_cache`).
    pub fn reset_prefix_cache(&mut self) {
        for block in &mut self.blocks {
            block.hash = None;
        }
        self.cached.clear();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn blocks_run_out_and_come_back() {
        let mut pool = BlockPool::new(2);
        let a = pool.allocate().unwrap();
        let b = pool.allocate().unwrap();
        assert_ne!(a, b);
        assert!(pool.allocate().is_none());
        assert_eq!(pool.used(), 2);
        pool.release(&[a]);
        assert_eq!(pool.free(), 1);
        assert_eq!(pool.allocate(), Some(a));
    }

    #[test]
    fn a_registered_block_is_shared_until_evicted() {
        let mut pool = BlockPool::new(2);
        let a = pool.allocate().unwrap();
        let hash = block_hash(None, &[1, 2, 3]);
        pool.register(a, hash);
        // Held by a second sequence while the first still holds it.
        assert_eq!(pool.reuse(hash), Some(a));
        pool.release(&[a, a]);
        assert_eq!(pool.free(), 2);
        // Free but cached: reusable without recomputation.
        assert_eq!(pool.reuse(hash), Some(a));
        assert_eq!(pool.free(), 1);
        pool.release(&[a]);
        // Allocating takes the oldest free block first, then evicts the cached one.
        let first = pool.allocate().unwrap();
        let second = pool.allocate().unwrap();
        assert_eq!([first, second].iter().filter(|&&x| x == a).count(), 1);
        assert!(pool.reuse(hash).is_none(), "evicted");
    }

    #[test]
    fn hashes_chain_over_the_prefix() {
        let first = block_hash(None, &[1, 2]);
        assert_ne!(block_hash(Some(first), &[3, 4]), block_hash(None, &[3, 4]));
        assert_eq!(
            block_hash(Some(first), &[3, 4]),
            block_hash(Some(first), &[3, 4])
        );
    }
}
