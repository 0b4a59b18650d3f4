//! Ethereum hexary Merkle-Patricia trie over hash-addressed nodes, updated incrementally: one
//! recursive pass per sorted batch touches only the nodes on the changed paths.

use std::collections::HashMap;
use std::ops::Range;

use alloy_primitives::{keccak256, B256};
use alloy_rlp::{Encodable, Header, EMPTY_STRING_CODE};

pub use alloy_trie::EMPTY_ROOT_HASH;

/// Keys are 32-byte hashes, so every leaf sits at exactly this many nibbles.
const KEY_NIBBLES: usize = 64;

/// A child whose RLP is at least this long is referenced by hash instead of embedded.
const HASH_REF_MIN_LEN: usize = 32;

/// Where hashed trie nodes are read from (RocksDB column family, or a map in tests).
pub trait NodeSource {
    /// The RLP of the node whose keccak is `hash`, if stored.
    fn node(&self, hash: &B256) -> Result<Option<Vec<u8>>, TrieError>;
}

/// Why a trie read or update failed.
#[derive(Debug, thiserror::Error)]
pub enum TrieError {
    #[error("missing trie node {0}")]
    MissingNode(B256),
    #[error("corrupt trie node {0}: {1}")]
    Corrupt(B256, String),
    #[error("trie storage: {0}")]
    Storage(String),
}

/// Result of applying updates: the new root and every newly created hashed node to persist (RLP bytes keyed by keccak of them).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TrieCommit {
    pub root: B256,
    pub nodes: Vec<(B256, Vec<u8>)>,
}

/// An in-memory NodeSource (HashMap) for tests and for genesis construction.
#[derive(Debug, Clone, Default)]
pub struct MemoryNodes {
    nodes: HashMap<B256, Vec<u8>>,
}

impl MemoryNodes {
    /// An empty node map.
    pub fn new() -> Self {
        Self::default()
    }

    /// Store every node of a commit.
    pub fn insert_all(&mut self, nodes: &[(B256, Vec<u8>)]) {
        self.nodes
            .extend(nodes.iter().map(|(hash, rlp)| (*hash, rlp.clone())));
    }

    /// Number of stored nodes.
    pub fn len(&self) -> usize {
        self.nodes.len()
    }

    /// Whether no node is stored.
    pub fn is_empty(&self) -> bool {
        self.nodes.is_empty()
    }
}

impl NodeSource for MemoryNodes {
    fn node(&self, hash: &B256) -> Result<Option<Vec<u8>>, TrieError> {
        Ok(self.nodes.get(hash).cloned())
    }
}

/// Apply `updates` (sorted by key ascending, unique keys; `None` deletes, `Some(v)` inserts/overwrites with a non-empty value) to the trie rooted at `root`.
///
/// An unsorted batch is sorted first (a later duplicate wins), and `Some` of an empty value deletes,
/// because the Ethereum trie never stores empty values.
pub fn update(
    src: &dyn NodeSource,
    root: B256,
    updates: &[(B256, Option<Vec<u8>>)],
) -> Result<TrieCommit, TrieError> {
    let mut ops: Vec<Op<'_>> = updates
        .iter()
        .map(|(key, value)| Op {
            key: unpack(key),
            value: value.as_deref().filter(|v| !v.is_empty()),
        })
        .collect();
    if !ops.windows(2).all(|w| w[0].key < w[1].key) {
        // Stable sort keeps batch order among equal keys, so keeping the last of each run makes it win.
        ops.sort_by_key(|op| op.key);
        let mut deduped: Vec<Op<'_>> = Vec::with_capacity(ops.len());
        for op in ops {
            match deduped.last_mut() {
                Some(last) if last.key == op.key => *last = op,
                _ => deduped.push(op),
            }
        }
        ops = deduped;
    }
    if ops.is_empty() {
        return Ok(TrieCommit {
            root,
            nodes: Vec::new(),
        });
    }

    let mut committer = Committer {
        src,
        nodes: Vec::new(),
    };
    let top = if root == EMPTY_ROOT_HASH {
        Node::Empty
    } else {
        read(src, &Ref::Hash(root), 0)?
    };
    let sub = committer.apply(top, 0, &ops)?;
    let root = committer.seal_root(sub);
    Ok(TrieCommit {
        root,
        nodes: committer.nodes,
    })
}

/// Read the value stored under `key` in the trie rooted at `root`.
pub fn get(src: &dyn NodeSource, root: B256, key: &B256) -> Result<Option<Vec<u8>>, TrieError> {
    if root == EMPTY_ROOT_HASH {
        return Ok(None);
    }
    let key = unpack(key);
    let mut depth = 0;
    let mut node = read(src, &Ref::Hash(root), 0)?;
    loop {
        match node {
            Node::Empty => return Ok(None),
            Node::Leaf { path, value } => {
                return Ok((path[..] == key[depth..]).then_some(value));
            }
            Node::Extension { path, child } => {
                if !key[depth..].starts_with(&path) {
                    return Ok(None);
                }
                depth += path.len();
                node = read(src, &child, depth)?;
            }
            Node::Branch { children } => {
                let child = &children[key[depth] as usize];
                depth += 1;
                node = read(src, child, depth)?;
            }
        }
    }
}

/// The proof of `key` in the trie rooted at `root` (EIP-1186): the RLP of every hashed node on the
/// key's path, root first. It proves the value when the key is present and its absence otherwise
/// (the path ends at an empty child, a diverging extension or another leaf). Empty for an empty trie.
pub fn prove(src: &dyn NodeSource, root: B256, key: &B256) -> Result<Vec<Vec<u8>>, TrieError> {
    let mut proof = Vec::new();
    if root == EMPTY_ROOT_HASH {
        return Ok(proof);
    }
    let key = unpack(key);
    let mut depth = 0;
    let mut next = Ref::Hash(root);
    loop {
        let node = match &next {
            Ref::Hash(hash) => {
                let rlp = src.node(hash)?.ok_or(TrieError::MissingNode(*hash))?;
                let node = decode(&rlp, depth).map_err(|why| TrieError::Corrupt(*hash, why))?;
                proof.push(rlp);
                node
            }
            // Embedded nodes are part of their parent's RLP, already in the proof.
            other => read(src, other, depth)?,
        };
        match node {
            Node::Empty | Node::Leaf { .. } => return Ok(proof),
            Node::Extension { path, child } => {
                if !key[depth..].starts_with(&path) {
                    return Ok(proof);
                }
                depth += path.len();
                next = child;
            }
            Node::Branch { children } => {
                next = children[key[depth] as usize].clone();
                depth += 1;
                if matches!(next, Ref::Empty) {
                    return Ok(proof);
                }
            }
        }
    }
}

/// One update of the batch, its key unpacked to nibbles so grouping by nibble is an index.
#[derive(Clone, Copy)]
struct Op<'a> {
    key: [u8; KEY_NIBBLES],
    value: Option<&'a [u8]>,
}

/// How a parent points at a child.
#[derive(Clone, Default)]
enum Ref {
    #[default]
    Empty,
    Hash(B256),
    /// Full RLP of a child shorter than 32 bytes, embedded in its parent.
    Inline(Vec<u8>),
    /// An existing node already decoded and not yet encoded (the tail of a split extension).
    Decoded(Box<Node>),
}

/// A decoded trie node; paths are nibbles.
#[derive(Clone)]
enum Node {
    Empty,
    Leaf { path: Vec<u8>, value: Vec<u8> },
    Extension { path: Vec<u8>, child: Ref },
    Branch { children: Box<[Ref; 16]> },
}

/// A rewritten subtree whose top is left open, because the parent may still prepend nibbles to a
/// leaf or extension when it collapses; a branch is final, so it is already encoded.
enum Sub {
    Empty,
    Leaf { path: Vec<u8>, value: Vec<u8> },
    Extension { path: Vec<u8>, child: Ref },
    Branch(Ref),
}

/// Either a child left as it was or a rewritten one, while a branch is being rebuilt.
enum Slot {
    Kept(Ref),
    New(Sub),
}

impl Slot {
    fn is_empty(&self) -> bool {
        matches!(self, Slot::Kept(Ref::Empty) | Slot::New(Sub::Empty))
    }
}

/// Collects the nodes created by one update batch.
struct Committer<'s> {
    src: &'s dyn NodeSource,
    nodes: Vec<(B256, Vec<u8>)>,
}

impl Committer<'_> {
    /// Rewrite `node`, which sits `depth` nibbles down, with `ops` (non-empty, all under this node's path prefix).
    fn apply(&mut self, node: Node, depth: usize, ops: &[Op<'_>]) -> Result<Sub, TrieError> {
        match node {
            Node::Empty => {
                let puts: Vec<Op<'_>> = ops
                    .iter()
                    .filter(|op| op.value.is_some())
                    .copied()
                    .collect();
                Ok(self.build(depth, &puts))
            }
            Node::Leaf { path, value } => Ok(self.apply_leaf(&path, &value, depth, ops)),
            Node::Extension { path, child } => self.apply_extension(path, child, depth, ops),
            Node::Branch { children } => self.apply_branch(*children, depth, ops),
        }
    }

    /// A leaf meeting a batch: merge it into the batch's inserts and build that set afresh.
    fn apply_leaf(&mut self, path: &[u8], value: &[u8], depth: usize, ops: &[Op<'_>]) -> Sub {
        let mut leaf_key = ops[0].key;
        leaf_key[depth..].copy_from_slice(path);
        let leaf = Op {
            key: leaf_key,
            value: Some(value),
        };
        let mut puts: Vec<Op<'_>> = Vec::with_capacity(ops.len() + 1);
        let mut leaf_pending = true;
        for op in ops {
            if leaf_pending && op.key >= leaf_key {
                // An op on the leaf's own key replaces or deletes it.
                if op.key != leaf_key {
                    puts.push(leaf);
                }
                leaf_pending = false;
            }
            if op.value.is_some() {
                puts.push(*op);
            }
        }
        if leaf_pending {
            puts.push(leaf);
        }
        self.build(depth, &puts)
    }

    /// An extension meeting a batch: descend if every key follows its path, else split it at the first divergence.
    fn apply_extension(
        &mut self,
        path: Vec<u8>,
        child: Ref,
        depth: usize,
        ops: &[Op<'_>],
    ) -> Result<Sub, TrieError> {
        let end = depth + path.len();
        // For sorted keys the smallest shared prefix with any fixed path is at the first or last key.
        let first = common_prefix(&ops[0].key[depth..end], &path);
        let last = common_prefix(&ops[ops.len() - 1].key[depth..end], &path);
        let split = first.min(last);
        if split == path.len() {
            let node = read(self.src, &child, end)?;
            let sub = self.apply(node, end, ops)?;
            return Ok(prefix(&path, sub));
        }
        let tail = if split + 1 == path.len() {
            child
        } else {
            Ref::Decoded(Box::new(Node::Extension {
                path: path[split + 1..].to_vec(),
                child,
            }))
        };
        let mut children: [Ref; 16] = Default::default();
        children[path[split] as usize] = tail;
        let sub = self.apply_branch(children, depth + split, ops)?;
        Ok(prefix(&path[..split], sub))
    }

    /// A branch meeting a batch: rewrite each touched child, then re-encode or collapse.
    fn apply_branch(
        &mut self,
        children: [Ref; 16],
        depth: usize,
        ops: &[Op<'_>],
    ) -> Result<Sub, TrieError> {
        let groups = partition(ops, depth);
        let mut slots: Vec<Slot> = Vec::with_capacity(16);
        for (child, group) in children.into_iter().zip(groups) {
            if group.is_empty() {
                slots.push(Slot::Kept(child));
            } else {
                let node = read(self.src, &child, depth + 1)?;
                slots.push(Slot::New(self.apply(node, depth + 1, &ops[group])?));
            }
        }
        let live = slots.iter().filter(|slot| !slot.is_empty()).count();
        match live {
            0 => Ok(Sub::Empty),
            1 => {
                let (nibble, slot) = slots
                    .into_iter()
                    .enumerate()
                    .find(|(_, slot)| !slot.is_empty())
                    .expect("one live child was counted");
                let sub = match slot {
                    Slot::New(sub) => sub,
                    Slot::Kept(child) => self.open(child, depth + 1)?,
                };
                Ok(prefix(&[nibble as u8], sub))
            }
            _ => {
                let refs: Vec<Ref> = slots
                    .into_iter()
                    .map(|slot| match slot {
                        Slot::Kept(child) => self.seal_ref(child),
                        Slot::New(sub) => self.seal(sub),
                    })
                    .collect();
                Ok(Sub::Branch(self.reference(encode_branch(&refs))))
            }
        }
    }

    /// Build the subtree holding exactly `puts` (inserts only, sorted, all under the current prefix).
    fn build(&mut self, depth: usize, puts: &[Op<'_>]) -> Sub {
        match puts {
            [] => Sub::Empty,
            [only] => Sub::Leaf {
                path: only.key[depth..].to_vec(),
                value: only.value.unwrap_or_default().to_vec(),
            },
            [first, .., last] => {
                let shared = common_prefix(&first.key[depth..], &last.key[depth..]);
                let fork = depth + shared;
                let refs: Vec<Ref> = partition(puts, fork)
                    .into_iter()
                    .map(|group| {
                        let sub = self.build(fork + 1, &puts[group]);
                        self.seal(sub)
                    })
                    .collect();
                let branch = Sub::Branch(self.reference(encode_branch(&refs)));
                prefix(&first.key[depth..fork], branch)
            }
        }
    }

    /// Turn an untouched child into an open subtree, so a collapsing parent can extend its path.
    fn open(&mut self, child: Ref, depth: usize) -> Result<Sub, TrieError> {
        if let Ref::Decoded(node) = child {
            return Ok(self.settle(*node));
        }
        Ok(match read(self.src, &child, depth)? {
            // The branch's encoding does not change, so the existing reference is reused.
            Node::Branch { .. } => Sub::Branch(child),
            node => self.settle(node),
        })
    }

    /// An existing decoded node as an open subtree.
    fn settle(&mut self, node: Node) -> Sub {
        match node {
            Node::Empty => Sub::Empty,
            Node::Leaf { path, value } => Sub::Leaf { path, value },
            Node::Extension { path, child } => Sub::Extension { path, child },
            Node::Branch { children } => {
                let refs: Vec<Ref> = (*children)
                    .into_iter()
                    .map(|child| self.seal_ref(child))
                    .collect();
                Sub::Branch(self.reference(encode_branch(&refs)))
            }
        }
    }

    /// A reference as it will appear in the parent's RLP.
    fn seal_ref(&mut self, child: Ref) -> Ref {
        match child {
            Ref::Decoded(node) => {
                let sub = self.settle(*node);
                self.seal(sub)
            }
            other => other,
        }
    }

    /// Encode an open subtree and return how its parent references it.
    fn seal(&mut self, sub: Sub) -> Ref {
        match sub {
            Sub::Empty => Ref::Empty,
            Sub::Branch(child) => child,
            Sub::Leaf { path, value } => self.reference(encode_leaf(&path, &value)),
            Sub::Extension { path, child } => {
                let child = self.seal_ref(child);
                self.reference(encode_extension(&path, &child))
            }
        }
    }

    /// The root is always referenced by hash and stored, even when shorter than 32 bytes.
    fn seal_root(&mut self, sub: Sub) -> B256 {
        match self.seal(sub) {
            Ref::Empty => EMPTY_ROOT_HASH,
            Ref::Hash(hash) => hash,
            Ref::Inline(rlp) => self.store(rlp),
            Ref::Decoded(_) => unreachable!("seal always encodes decoded nodes"),
        }
    }

    /// Embed a short node in its parent; hash and store a long one.
    fn reference(&mut self, rlp: Vec<u8>) -> Ref {
        if rlp.len() < HASH_REF_MIN_LEN {
            Ref::Inline(rlp)
        } else {
            Ref::Hash(self.store(rlp))
        }
    }

    fn store(&mut self, rlp: Vec<u8>) -> B256 {
        let hash = keccak256(&rlp);
        self.nodes.push((hash, rlp));
        hash
    }
}

/// Prepend `nibbles` to the top of a subtree, merging into a leaf's or extension's path.
fn prefix(nibbles: &[u8], sub: Sub) -> Sub {
    if nibbles.is_empty() {
        return sub;
    }
    let join = |path: Vec<u8>| [nibbles, &path[..]].concat();
    match sub {
        Sub::Empty => Sub::Empty,
        Sub::Leaf { path, value } => Sub::Leaf {
            path: join(path),
            value,
        },
        Sub::Extension { path, child } => Sub::Extension {
            path: join(path),
            child,
        },
        Sub::Branch(child) => Sub::Extension {
            path: nibbles.to_vec(),
            child,
        },
    }
}

/// The index ranges of `ops` (sorted) whose key has each nibble at `depth`.
fn partition(ops: &[Op<'_>], depth: usize) -> [Range<usize>; 16] {
    let mut groups: [Range<usize>; 16] = Default::default();
    let mut start = 0;
    while start < ops.len() {
        let nibble = ops[start].key[depth];
        let len = ops[start..].partition_point(|op| op.key[depth] == nibble);
        groups[nibble as usize] = start..start + len;
        start += len;
    }
    groups
}

fn common_prefix(a: &[u8], b: &[u8]) -> usize {
    a.iter().zip(b).take_while(|(x, y)| x == y).count()
}

fn unpack(key: &B256) -> [u8; KEY_NIBBLES] {
    let mut nibbles = [0u8; KEY_NIBBLES];
    for (i, byte) in key.iter().enumerate() {
        nibbles[2 * i] = byte >> 4;
        nibbles[2 * i + 1] = byte & 0x0f;
    }
    nibbles
}

/// Load and decode the node a reference points at, `depth` nibbles down.
fn read(src: &dyn NodeSource, child: &Ref, depth: usize) -> Result<Node, TrieError> {
    match child {
        Ref::Empty => Ok(Node::Empty),
        Ref::Hash(hash) => {
            let rlp = src.node(hash)?.ok_or(TrieError::MissingNode(*hash))?;
            decode(&rlp, depth).map_err(|why| TrieError::Corrupt(*hash, why))
        }
        Ref::Inline(rlp) => {
            decode(rlp, depth).map_err(|why| TrieError::Corrupt(keccak256(rlp), why))
        }
        Ref::Decoded(node) => Ok((**node).clone()),
    }
}

/// One RLP item: whether it is a list, its payload, and its full encoding.
struct Item<'a> {
    list: bool,
    payload: &'a [u8],
    raw: &'a [u8],
}

fn next_item<'a>(buf: &mut &'a [u8]) -> Result<Item<'a>, String> {
    let start = *buf;
    let header = Header::decode(buf).map_err(|e| e.to_string())?;
    let payload = &buf[..header.payload_length];
    *buf = &buf[header.payload_length..];
    Ok(Item {
        list: header.list,
        payload,
        raw: &start[..start.len() - buf.len()],
    })
}

/// Decode a node's RLP, checking its shape fits 64-nibble keys at `depth`.
fn decode(rlp: &[u8], depth: usize) -> Result<Node, String> {
    let mut buf = rlp;
    let node = next_item(&mut buf)?;
    if !node.list || !buf.is_empty() {
        return Err("not a single RLP list".into());
    }
    let mut body = node.payload;
    let mut items = Vec::with_capacity(17);
    while !body.is_empty() {
        items.push(next_item(&mut body)?);
    }
    match items.len() {
        2 => {
            let (path, is_leaf) = decode_path(&items[0])?;
            if is_leaf {
                if items[1].list || items[1].payload.is_empty() {
                    return Err("leaf value must be a non-empty string".into());
                }
                if depth + path.len() != KEY_NIBBLES {
                    return Err(format!("leaf ends at nibble {}", depth + path.len()));
                }
                Ok(Node::Leaf {
                    path,
                    value: items[1].payload.to_vec(),
                })
            } else {
                if path.is_empty() || depth + path.len() >= KEY_NIBBLES {
                    return Err(format!(
                        "extension of {} nibbles at depth {depth}",
                        path.len()
                    ));
                }
                match child_ref(&items[1])? {
                    Ref::Empty => Err("extension without child".into()),
                    child => Ok(Node::Extension { path, child }),
                }
            }
        }
        17 => {
            if depth >= KEY_NIBBLES {
                return Err("branch below full key length".into());
            }
            if items[16].list || !items[16].payload.is_empty() {
                return Err("branch value in a fixed-length-key trie".into());
            }
            let mut children: [Ref; 16] = Default::default();
            for (slot, item) in children.iter_mut().zip(&items) {
                *slot = child_ref(item)?;
            }
            Ok(Node::Branch {
                children: Box::new(children),
            })
        }
        n => Err(format!("list of {n} items")),
    }
}

fn child_ref(item: &Item<'_>) -> Result<Ref, String> {
    match (item.list, item.payload.len()) {
        (false, 0) => Ok(Ref::Empty),
        (false, 32) => Ok(Ref::Hash(B256::from_slice(item.payload))),
        (true, _) if item.raw.len() < HASH_REF_MIN_LEN => Ok(Ref::Inline(item.raw.to_vec())),
        _ => Err(format!(
            "invalid child reference of {} bytes",
            item.raw.len()
        )),
    }
}

/// Decode a hex-prefix (compact) path into nibbles and whether it ends a leaf.
fn decode_path(item: &Item<'_>) -> Result<(Vec<u8>, bool), String> {
    let bytes = item.payload;
    let Some((&first, rest)) = bytes.split_first().filter(|_| !item.list) else {
        return Err("path must be a non-empty string".into());
    };
    let flag = first >> 4;
    if flag > 3 || (flag & 1 == 0 && first & 0x0f != 0) {
        return Err(format!("bad hex-prefix byte {first:#04x}"));
    }
    let mut path = Vec::with_capacity(rest.len() * 2 + 1);
    if flag & 1 == 1 {
        path.push(first & 0x0f);
    }
    for byte in rest {
        path.push(byte >> 4);
        path.push(byte & 0x0f);
    }
    Ok((path, flag & 2 == 2))
}

/// Hex-prefix (compact) encoding of a nibble path.
fn encode_path(path: &[u8], leaf: bool) -> Vec<u8> {
    let odd = path.len() % 2 == 1;
    let flag = (u8::from(leaf) << 1 | u8::from(odd)) << 4;
    let mut out = Vec::with_capacity(path.len() / 2 + 1);
    let rest = if odd {
        out.push(flag | path[0]);
        &path[1..]
    } else {
        out.push(flag);
        path
    };
    out.extend(rest.chunks_exact(2).map(|pair| pair[0] << 4 | pair[1]));
    out
}

fn ref_len(child: &Ref) -> usize {
    match child {
        Ref::Hash(_) => 33,
        Ref::Inline(rlp) => rlp.len(),
        Ref::Empty => 1,
        Ref::Decoded(_) => unreachable!("decoded children are sealed before encoding"),
    }
}

fn put_ref(out: &mut Vec<u8>, child: &Ref) {
    match child {
        Ref::Hash(hash) => hash.as_slice().encode(out),
        Ref::Inline(rlp) => out.extend_from_slice(rlp),
        Ref::Empty => out.push(EMPTY_STRING_CODE),
        Ref::Decoded(_) => unreachable!("decoded children are sealed before encoding"),
    }
}

fn list_with(payload_length: usize) -> Vec<u8> {
    let header = Header {
        list: true,
        payload_length,
    };
    let mut out = Vec::with_capacity(header.length_with_payload());
    header.encode(&mut out);
    out
}

fn encode_leaf(path: &[u8], value: &[u8]) -> Vec<u8> {
    let path = encode_path(path, true);
    let mut out = list_with(path.as_slice().length() + value.length());
    path.as_slice().encode(&mut out);
    value.encode(&mut out);
    out
}

fn encode_extension(path: &[u8], child: &Ref) -> Vec<u8> {
    let path = encode_path(path, false);
    let mut out = list_with(path.as_slice().length() + ref_len(child));
    path.as_slice().encode(&mut out);
    put_ref(&mut out, child);
    out
}

fn encode_branch(children: &[Ref]) -> Vec<u8> {
    let mut out = list_with(children.iter().map(ref_len).sum::<usize>() + 1);
    for child in children {
        put_ref(&mut out, child);
    }
    out.push(EMPTY_STRING_CODE);
    out
}

/// Visit every node of the trie at `root`, depth first in key order: `on_node` gets each hashed
/// node (hash, RLP) after checking that the RLP hashes to the reference, `on_leaf` each leaf
/// (full hashed key, value). Used to export a state snapshot and to verify an imported one.
pub fn walk(
    src: &dyn NodeSource,
    root: B256,
    on_node: &mut dyn FnMut(B256, &[u8]) -> Result<(), TrieError>,
    on_leaf: &mut dyn FnMut(B256, &[u8]) -> Result<(), TrieError>,
) -> Result<(), TrieError> {
    if root == EMPTY_ROOT_HASH {
        return Ok(());
    }
    let mut path = Vec::with_capacity(KEY_NIBBLES);
    walk_ref(src, &Ref::Hash(root), &mut path, on_node, on_leaf)
}

fn walk_ref(
    src: &dyn NodeSource,
    child: &Ref,
    path: &mut Vec<u8>,
    on_node: &mut dyn FnMut(B256, &[u8]) -> Result<(), TrieError>,
    on_leaf: &mut dyn FnMut(B256, &[u8]) -> Result<(), TrieError>,
) -> Result<(), TrieError> {
    let depth = path.len();
    let node = match child {
        Ref::Empty => return Ok(()),
        Ref::Hash(hash) => {
            let rlp = src.node(hash)?.ok_or(TrieError::MissingNode(*hash))?;
            if keccak256(&rlp) != *hash {
                return Err(TrieError::Corrupt(*hash, "node does not hash to its reference".into()));
            }
            on_node(*hash, &rlp)?;
            decode(&rlp, depth).map_err(|why| TrieError::Corrupt(*hash, why))?
        }
        other => read(src, other, depth)?,
    };
    match node {
        Node::Empty => Ok(()),
        Node::Leaf { path: rest, value } => {
            let mut key = [0u8; 32];
            for (i, nibble) in path.iter().chain(rest.iter()).enumerate() {
                key[i / 2] |= if i % 2 == 0 { nibble << 4 } else { *nibble };
            }
            on_leaf(B256::from(key), &value)
        }
        Node::Extension { path: rest, child } => {
            path.extend_from_slice(&rest);
            walk_ref(src, &child, path, on_node, on_leaf)?;
            path.truncate(depth);
            Ok(())
        }
        Node::Branch { children } => {
            for (nibble, child) in children.iter().enumerate() {
                path.push(nibble as u8);
                walk_ref(src, child, path, on_node, on_leaf)?;
                path.truncate(depth);
            }
            Ok(())
        }
    }
}
