//! The incremental trie must agree with alloy-trie's from-scratch HashBuilder at every step.

use std::collections::BTreeMap;
use std::time::Instant;

use alloy_primitives::{keccak256, B256};
use alloy_trie::{HashBuilder, Nibbles};
use svc_store::trie::{
    get, update, MemoryNodes, NodeSource, TrieCommit, TrieError, EMPTY_ROOT_HASH,
};

/// SplitMix64: a seeded generator, so every failure replays exactly.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }

    fn key(&mut self) -> B256 {
        keccak256(self.next().to_be_bytes())
    }

    /// Values from 1 to 40 bytes, so leaves are both embedded (<32 bytes) and hashed.
    fn value(&mut self) -> Vec<u8> {
        let len = 1 + self.below(40) as usize;
        (0..len).map(|_| self.next() as u8).collect()
    }
}

type State = BTreeMap<B256, Vec<u8>>;
type Batch = Vec<(B256, Option<Vec<u8>>)>;

fn reference_root(state: &State) -> B256 {
    let mut builder = HashBuilder::default();
    for (key, value) in state {
        builder.add_leaf(Nibbles::unpack(key), value);
    }
    builder.root()
}

/// Apply a batch to the trie and the model, persisting the new nodes.
fn commit(
    nodes: &mut MemoryNodes,
    root: B256,
    state: &mut State,
    batch: &BTreeMap<B256, Option<Vec<u8>>>,
) -> TrieCommit {
    let updates: Batch = batch.iter().map(|(k, v)| (*k, v.clone())).collect();
    let result = update(nodes, root, &updates).expect("update");
    nodes.insert_all(&result.nodes);
    for (key, value) in batch {
        match value {
            Some(value) => state.insert(*key, value.clone()),
            None => state.remove(key),
        };
    }
    result
}

fn assert_reads(nodes: &MemoryNodes, root: B256, state: &State) {
    for (key, value) in state {
        assert_eq!(
            get(nodes, root, key).unwrap().as_ref(),
            Some(value),
            "key {key} at root {root}"
        );
    }
}

#[test]
fn random_sets_match_hash_builder() {
    let mut rng = Rng(1);
    for size in [0usize, 1, 2, 3, 4, 15, 16, 17, 100, 1_000, 5_000] {
        let mut state = State::new();
        while state.len() < size {
            state.insert(rng.key(), rng.value());
        }
        let updates: Batch = state.iter().map(|(k, v)| (*k, Some(v.clone()))).collect();
        let result = update(&MemoryNodes::new(), EMPTY_ROOT_HASH, &updates).unwrap();
        assert_eq!(result.root, reference_root(&state), "size {size}");
        let mut nodes = MemoryNodes::new();
        nodes.insert_all(&result.nodes);
        assert_reads(&nodes, result.root, &state);
        for (hash, rlp) in &result.nodes {
            assert_eq!(
                *hash,
                keccak256(rlp),
                "nodes are keyed by the keccak of their RLP"
            );
        }
    }
}

#[test]
fn empty_batch_and_empty_trie() {
    let nodes = MemoryNodes::new();
    let result = update(&nodes, EMPTY_ROOT_HASH, &[]).unwrap();
    assert_eq!(result.root, EMPTY_ROOT_HASH);
    assert!(result.nodes.is_empty());
    let key = keccak256([1u8]);
    let result = update(&nodes, EMPTY_ROOT_HASH, &[(key, None)]).unwrap();
    assert_eq!(
        result.root, EMPTY_ROOT_HASH,
        "deleting from an empty trie leaves it empty"
    );
    assert!(result.nodes.is_empty());
    assert_eq!(get(&nodes, EMPTY_ROOT_HASH, &key).unwrap(), None);
}

#[test]
fn single_leaf_root_is_stored_even_when_short() {
    let key = keccak256([]);
    let mut nodes = MemoryNodes::new();
    let result = update(&nodes, EMPTY_ROOT_HASH, &[(key, Some(vec![0x01]))]).unwrap();
    let state = State::from([(key, vec![0x01])]);
    assert_eq!(result.root, reference_root(&state));
    assert_eq!(result.nodes.len(), 1);
    assert_eq!(result.nodes[0].0, result.root);
    nodes.insert_all(&result.nodes);
    assert_eq!(get(&nodes, result.root, &key).unwrap(), Some(vec![0x01]));
    assert_eq!(get(&nodes, result.root, &keccak256([0u8])).unwrap(), None);
}

#[test]
fn incremental_inserts_overwrites_deletes_match_from_scratch() {
    let mut rng = Rng(7);
    let mut nodes = MemoryNodes::new();
    let mut state = State::new();
    let mut root = EMPTY_ROOT_HASH;
    let mut history: Vec<(B256, State)> = Vec::new();
    for step in 0..120 {
        let mut batch = BTreeMap::new();
        let existing: Vec<B256> = state.keys().copied().collect();
        for _ in 0..rng.below(60) {
            match rng.below(4) {
                0 | 1 => {
                    batch.insert(rng.key(), Some(rng.value()));
                }
                2 if !existing.is_empty() => {
                    let key = existing[rng.below(existing.len() as u64) as usize];
                    batch.insert(key, Some(rng.value()));
                }
                2 => {}
                _ => {
                    // Delete a present key most of the time and an absent one otherwise.
                    let key = if existing.is_empty() || rng.below(5) == 0 {
                        rng.key()
                    } else {
                        existing[rng.below(existing.len() as u64) as usize]
                    };
                    batch.insert(key, None);
                }
            }
        }
        root = commit(&mut nodes, root, &mut state, &batch).root;
        assert_eq!(root, reference_root(&state), "step {step}");
        history.push((root, state.clone()));
    }
    assert!(
        state.len() > 500,
        "the sequence grew a sizeable trie ({})",
        state.len()
    );

    // Every old root still reads its own values: history needs no extra bookkeeping.
    for (old_root, old_state) in &history {
        assert_reads(&nodes, *old_root, old_state);
    }
    let (old_root, old_state) = &history[history.len() / 2];
    for key in state
        .keys()
        .filter(|k| !old_state.contains_key(*k))
        .take(20)
    {
        assert_eq!(
            get(&nodes, *old_root, key).unwrap(),
            None,
            "key added later is absent at an old root"
        );
    }

    // Delete everything in random batches, checking canonical shape on the way down.
    let mut remaining: Vec<B256> = state.keys().copied().collect();
    while !remaining.is_empty() {
        let take = (1 + rng.below(80) as usize).min(remaining.len());
        let start = rng.below((remaining.len() - take + 1) as u64) as usize;
        let batch: BTreeMap<B256, Option<Vec<u8>>> = remaining
            .drain(start..start + take)
            .map(|k| (k, None))
            .collect();
        root = commit(&mut nodes, root, &mut state, &batch).root;
        assert_eq!(root, reference_root(&state), "{} keys left", state.len());
    }
    assert_eq!(root, EMPTY_ROOT_HASH);
}

#[test]
fn one_key_at_a_time_equals_one_batch() {
    let mut rng = Rng(11);
    let entries: Vec<(B256, Vec<u8>)> = (0..400).map(|_| (rng.key(), rng.value())).collect();
    let mut nodes = MemoryNodes::new();
    let mut root = EMPTY_ROOT_HASH;
    for (key, value) in &entries {
        let result = update(&nodes, root, &[(*key, Some(value.clone()))]).unwrap();
        nodes.insert_all(&result.nodes);
        root = result.root;
    }
    let mut sorted = entries.clone();
    sorted.sort();
    let batch: Batch = sorted.into_iter().map(|(k, v)| (k, Some(v))).collect();
    assert_eq!(
        update(&MemoryNodes::new(), EMPTY_ROOT_HASH, &batch)
            .unwrap()
            .root,
        root
    );

    // Removing keys one at a time in insertion order collapses back to the batch-built shape.
    for (i, (key, _)) in entries.iter().enumerate().take(300) {
        let result = update(&nodes, root, &[(*key, None)]).unwrap();
        nodes.insert_all(&result.nodes);
        root = result.root;
        let rest: State = entries[i + 1..].iter().cloned().collect();
        if i % 50 == 0 {
            assert_eq!(root, reference_root(&rest), "after deleting {} keys", i + 1);
        }
    }
    let rest: State = entries[300..].iter().cloned().collect();
    assert_eq!(root, reference_root(&rest));
}

#[test]
fn unsorted_batch_with_duplicates_is_sorted_and_last_wins() {
    let mut rng = Rng(13);
    let keys: Vec<B256> = (0..50).map(|_| rng.key()).collect();
    let mut batch: Batch = keys.iter().map(|k| (*k, Some(vec![1u8]))).collect();
    batch.push((keys[3], Some(vec![2u8; 40])));
    batch.push((keys[4], None));
    batch.push((keys[5], Some(Vec::new())));
    let result = update(&MemoryNodes::new(), EMPTY_ROOT_HASH, &batch).unwrap();
    let mut state: State = keys.iter().map(|k| (*k, vec![1u8])).collect();
    state.insert(keys[3], vec![2u8; 40]);
    state.remove(&keys[4]);
    state.remove(&keys[5]);
    assert_eq!(result.root, reference_root(&state));
}

/// Keys that share all but their last nibbles, under a common random stem.
fn clustered_keys(rng: &mut Rng, stems: usize, per_stem: usize) -> Vec<B256> {
    let mut keys = Vec::new();
    for _ in 0..stems {
        let stem = rng.key();
        let shared_bytes = 28 + rng.below(4) as usize;
        for _ in 0..per_stem {
            let mut key = stem;
            for byte in key.0[shared_bytes..].iter_mut() {
                *byte = rng.below(3) as u8;
            }
            keys.push(key);
        }
    }
    keys
}

#[test]
fn long_shared_prefixes_and_embedded_nodes() {
    let mut rng = Rng(17);
    let keys = clustered_keys(&mut rng, 6, 40);
    let mut nodes = MemoryNodes::new();
    let mut state = State::new();
    let mut root = EMPTY_ROOT_HASH;
    for round in 0..80 {
        let mut batch = BTreeMap::new();
        for _ in 0..1 + rng.below(12) {
            let key = keys[rng.below(keys.len() as u64) as usize];
            // One-byte values keep deep leaves, and often their branches, under 32 bytes.
            let value = if rng.below(3) == 0 {
                None
            } else {
                Some(vec![1 + rng.below(200) as u8])
            };
            batch.insert(key, value);
        }
        root = commit(&mut nodes, root, &mut state, &batch).root;
        assert_eq!(root, reference_root(&state), "round {round}");
        assert_reads(&nodes, root, &state);
    }
    let batch: BTreeMap<B256, Option<Vec<u8>>> = state.keys().map(|k| (*k, None)).collect();
    root = commit(&mut nodes, root, &mut state, &batch).root;
    assert_eq!(root, EMPTY_ROOT_HASH);
}

#[test]
fn siblings_in_the_last_nibble_are_embedded_under_one_stored_root() {
    let base = keccak256(b"stem");
    let mut other = base;
    other.0[31] ^= 0x01;
    let state = State::from([(base, vec![0x05]), (other, vec![0x06])]);
    let batch: Batch = state.iter().map(|(k, v)| (*k, Some(v.clone()))).collect();
    let result = update(&MemoryNodes::new(), EMPTY_ROOT_HASH, &batch).unwrap();
    assert_eq!(result.root, reference_root(&state));
    // Extension of 63 nibbles over a branch of two inline leaves: only the root is hashed.
    assert_eq!(result.nodes.len(), 1);
    let mut nodes = MemoryNodes::new();
    nodes.insert_all(&result.nodes);
    assert_reads(&nodes, result.root, &state);

    // Deleting one sibling must turn extension + branch + leaf back into one leaf.
    let result2 = update(&nodes, result.root, &[(other, None)]).unwrap();
    let single = State::from([(base, vec![0x05])]);
    assert_eq!(result2.root, reference_root(&single));
    nodes.insert_all(&result2.nodes);
    assert_eq!(get(&nodes, result2.root, &base).unwrap(), Some(vec![0x05]));
    assert_eq!(get(&nodes, result2.root, &other).unwrap(), None);
    assert_eq!(get(&nodes, result.root, &other).unwrap(), Some(vec![0x06]));
}

/// A node source that hides one node, as a pruned or incomplete store would.
struct Without<'a> {
    inner: &'a MemoryNodes,
    hidden: B256,
}

impl NodeSource for Without<'_> {
    fn node(&self, hash: &B256) -> Result<Option<Vec<u8>>, TrieError> {
        if *hash == self.hidden {
            return Ok(None);
        }
        self.inner.node(hash)
    }
}

#[test]
fn missing_nodes_are_reported_by_hash() {
    let mut rng = Rng(19);
    let state: State = (0..1_000).map(|_| (rng.key(), rng.value())).collect();
    let batch: Batch = state.iter().map(|(k, v)| (*k, Some(v.clone()))).collect();
    let result = update(&MemoryNodes::new(), EMPTY_ROOT_HASH, &batch).unwrap();
    let mut nodes = MemoryNodes::new();
    nodes.insert_all(&result.nodes);

    let unknown = keccak256(b"no such root");
    assert!(
        matches!(get(&nodes, unknown, &rng.key()), Err(TrieError::MissingNode(h)) if h == unknown)
    );
    assert!(
        matches!(update(&nodes, unknown, &[(rng.key(), None)]), Err(TrieError::MissingNode(h)) if h == unknown)
    );

    let hidden = result
        .nodes
        .iter()
        .map(|(h, _)| *h)
        .find(|h| *h != result.root)
        .unwrap();
    let src = Without {
        inner: &nodes,
        hidden,
    };
    let mut missing = 0;
    for (key, value) in &state {
        match get(&src, result.root, key) {
            Ok(found) => assert_eq!(found.as_ref(), Some(value)),
            Err(TrieError::MissingNode(h)) => {
                assert_eq!(h, hidden);
                missing += 1;
                let err = update(&src, result.root, &[(*key, Some(vec![9]))]).unwrap_err();
                assert!(matches!(err, TrieError::MissingNode(h) if h == hidden));
            }
            Err(other) => panic!("unexpected error {other}"),
        }
    }
    assert!(missing > 0, "some key lies under the hidden node");
}

#[test]
fn corrupt_nodes_are_rejected() {
    let mut nodes = MemoryNodes::new();
    let garbage = vec![0xc3, 0x01, 0x02, 0x03];
    let hash = keccak256(&garbage);
    nodes.insert_all(&[(hash, garbage)]);
    assert!(
        matches!(get(&nodes, hash, &keccak256([1u8])), Err(TrieError::Corrupt(h, _)) if h == hash)
    );
    let truncated = vec![0xf8, 0x44, 0x01];
    let hash = keccak256(&truncated);
    nodes.insert_all(&[(hash, truncated)]);
    assert!(
        matches!(update(&nodes, hash, &[(keccak256([1u8]), None)]), Err(TrieError::Corrupt(h, _)) if h == hash)
    );
}

#[test]
fn ten_thousand_updates_over_a_hundred_thousand_keys() {
    let mut rng = Rng(23);
    let mut state = State::new();
    while state.len() < 100_000 {
        state.insert(rng.key(), rng.value());
    }
    let batch: Batch = state.iter().map(|(k, v)| (*k, Some(v.clone()))).collect();
    let started = Instant::now();
    let genesis = update(&MemoryNodes::new(), EMPTY_ROOT_HASH, &batch).unwrap();
    let build = started.elapsed();
    assert_eq!(genesis.root, reference_root(&state));
    let mut nodes = MemoryNodes::new();
    nodes.insert_all(&genesis.nodes);

    let existing: Vec<B256> = state.keys().copied().collect();
    let mut changes = BTreeMap::new();
    while changes.len() < 10_000 {
        match rng.below(3) {
            0 => changes.insert(rng.key(), Some(rng.value())),
            1 => changes.insert(
                existing[rng.below(existing.len() as u64) as usize],
                Some(rng.value()),
            ),
            _ => changes.insert(existing[rng.below(existing.len() as u64) as usize], None),
        };
    }
    let updates: Batch = changes.iter().map(|(k, v)| (*k, v.clone())).collect();
    let started = Instant::now();
    let result = update(&nodes, genesis.root, &updates).unwrap();
    let incremental = started.elapsed();
    for (key, value) in &changes {
        match value {
            Some(value) => state.insert(*key, value.clone()),
            None => state.remove(key),
        };
    }
    assert_eq!(result.root, reference_root(&state));
    println!(
        "trie: build 100000 keys {:.1} ms ({} nodes); 10000 updates {:.1} ms ({} new nodes)",
        build.as_secs_f64() * 1e3,
        genesis.nodes.len(),
        incremental.as_secs_f64() * 1e3,
        result.nodes.len(),
    );
}

/// Proofs of present and absent keys verify with alloy-trie's verifier (an implementation that did
/// not build them), on tries small and large enough for embedded nodes, extensions and branches.
#[test]
fn proofs_verify_with_alloy_trie() {
    use alloy_primitives::Bytes;
    use alloy_trie::proof::verify_proof;
    use svc_store::trie::prove;

    let mut rng = Rng(0x9e00f);
    for size in [1usize, 2, 3, 17, 300] {
        let mut nodes = MemoryNodes::new();
        let mut state = State::new();
        let batch: Batch = (0..size).map(|_| (rng.key(), Some(rng.value()))).collect();
        for (k, v) in &batch {
            state.insert(*k, v.clone().unwrap());
        }
        let commit = update(&nodes, EMPTY_ROOT_HASH, &batch).unwrap();
        nodes.insert_all(&commit.nodes);
        for (key, value) in &state {
            let proof: Vec<Bytes> = prove(&nodes, commit.root, key).unwrap().into_iter().map(Bytes::from).collect();
            verify_proof(commit.root, Nibbles::unpack(key), Some(value.clone()), &proof).unwrap();
            assert!(verify_proof(commit.root, Nibbles::unpack(key), Some(vec![0xde, 0xad]), &proof).is_err());
            assert!(verify_proof(commit.root, Nibbles::unpack(key), None, &proof).is_err());
        }
        for _ in 0..50 {
            let absent = rng.key();
            let proof: Vec<Bytes> = prove(&nodes, commit.root, &absent).unwrap().into_iter().map(Bytes::from).collect();
            verify_proof(commit.root, Nibbles::unpack(absent), None, &proof).unwrap();
        }
    }
    assert!(prove(&MemoryNodes::new(), EMPTY_ROOT_HASH, &B256::ZERO).unwrap().is_empty());
}
