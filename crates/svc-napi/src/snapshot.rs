//! State sync snapshots (svc_store::snapshot): exported on a worker thread from the view pinned at
//! the call, chunks written as files; restored chunk by chunk and verified against a trusted root
//! on the block lane, off the JS thread.
//!
//! The restore runs on the block lane: it writes the consensus column families and moves the head,
//! as only the block path does otherwise, so the one thread that writes consensus state orders it
//! with every other write by construction; no block is made while a node state-syncs, so it waits
//! behind nothing and delays nothing. (The backfill lane would run it niced, stretching a join that
//! is on the node's critical path, behind explorer indexing jobs.)

use std::path::PathBuf;
use std::sync::Arc;

use napi::bindgen_prelude::{AsyncTask, Buffer, Object};
use napi::{Env, Task};
use napi_derive::napi;
use svc_store::snapshot::{self, SnapshotInfo};
use svc_store::ReadView;

use crate::chain::{guarded, Chain};
use crate::convert::*;
use crate::lane::on_lane;

/// A snapshot written to a directory: its block, state root and each chunk's keccak256.
#[napi(object)]
pub struct SnapshotWritten {
    pub height: i64,
    pub hash: Buffer,
    pub root: Buffer,
    pub chunk_hashes: Vec<Buffer>,
}

pub struct SnapshotTask {
    view: Arc<ReadView>,
    dir: PathBuf,
    chunk_bytes: usize,
}

impl Task for SnapshotTask {
    type Output = SnapshotInfo;
    type JsValue = SnapshotWritten;

    fn compute(&mut self) -> napi::Result<Self::Output> {
        std::fs::create_dir_all(&self.dir).map_err(|e| js_error(format!("snapshot dir {}: {e}", self.dir.display())))?;
        let dir = self.dir.clone();
        let mut sink = |index: u32, bytes: Vec<u8>| {
            std::fs::write(dir.join(format!("chunk-{index}")), bytes)
                .map_err(|e| svc_store::StoreError::Invalid(format!("snapshot chunk {index} in {}: {e}", dir.display())))
        };
        snapshot::export(&self.view, self.chunk_bytes, &mut sink).map_err(js_error)
    }

    fn resolve(&mut self, _env: Env, out: Self::Output) -> napi::Result<Self::JsValue> {
        Ok(SnapshotWritten {
            height: out.height as i64,
            hash: buffer(out.hash.as_slice()),
            root: buffer(out.root.as_slice()),
            chunk_hashes: out.chunk_hashes.iter().map(|h| buffer(h.as_slice())).collect(),
        })
    }
}

#[napi]
impl Chain {
    /// Writes a state sync snapshot of the head into `dir` (chunk-0, chunk-1 ...), each chunk at
    /// most `chunkBytes`, on a worker thread from the view pinned now; refused unless the head is
    /// block `height` (the block just committed).
    #[napi(ts_return_type = "Promise<SnapshotWritten>")]
    pub fn write_snapshot(&self, height: i64, dir: String, chunk_bytes: u32) -> napi::Result<AsyncTask<SnapshotTask>> {
        guarded(|| {
            let view = self.shared()?.view();
            let height = to_count(height, "snapshot height")?;
            if view.head_number() != height {
                return Err(js_error(format!("snapshot of block {height}: the head is block {}", view.head_number())));
            }
            Ok(AsyncTask::new(SnapshotTask { view, dir: PathBuf::from(dir), chunk_bytes: chunk_bytes as usize }))
        })
    }

    /// Starts restoring a snapshot: the data dir must hold nothing beyond genesis.
    #[napi]
    pub fn restore_begin(&self) -> napi::Result<()> {
        guarded(|| self.shared()?.store().restore_begin().map_err(js_error))
    }

    /// Writes one chunk of the snapshot being restored on the block lane: resolves false, writing
    /// nothing, when the chunk does not hash to `hash` (the keccak256 the snapshot's metadata lists
    /// for it), else true once its records are written (parsed, trie nodes and code checked by
    /// their hash; a bad record rejects). Await each before the next: chunks are written in order.
    #[napi(ts_return_type = "Promise<boolean>")]
    pub fn restore_chunk<'env>(&self, env: &'env Env, chunk: Buffer, hash: Buffer) -> napi::Result<Object<'env>> {
        guarded(|| {
            let expected = to_b256(&hash, "chunk hash")?;
            let chain = self.shared()?;
            on_lane(
                env,
                &svc_lanes::lanes().block,
                move || {
                    if alloy_primitives::keccak256(&chunk[..]) != expected {
                        return Ok(false);
                    }
                    chain.store().restore_chunk(&chunk).map_err(js_error)?;
                    Ok(true)
                },
                Ok,
            )
        })
    }

    /// Verifies the restored state against `root` (the trusted app hash of block `height`) and
    /// makes that block the head, on the block lane; rejects with what does not verify.
    #[napi(ts_return_type = "Promise<void>")]
    pub fn restore_finish<'env>(&self, env: &'env Env, height: i64, root: Buffer) -> napi::Result<Object<'env>> {
        guarded(|| {
            let height = to_count(height, "snapshot height")?;
            let root = to_b256(&root, "app hash")?;
            let chain = self.shared()?;
            on_lane(env, &svc_lanes::lanes().block, move || chain.store().restore_finish(height, root).map(drop).map_err(js_error), Ok)
        })
    }

    /// The first block whose state this node holds (the snapshot height it joined at by state sync; 0 otherwise).
    #[napi]
    pub fn state_from(&self) -> napi::Result<i64> {
        guarded(|| Ok(self.shared()?.view().state_from() as i64))
    }
}
