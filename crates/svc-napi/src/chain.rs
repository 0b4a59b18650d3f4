//! The `Chain` class: thin bindings over svc_evm::Chain and the store's read views.

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::PathBuf;
use std::sync::Arc;

use napi::bindgen_prelude::{BigInt, Buffer, Object};
use napi::Env;
use napi_derive::napi;
use svc_evm::{BlockRequest, CallStatus, ChainConfig, RecordWrite};
use svc_primitives::{next_base_fee, Bytes, SignedTransaction};
use svc_store::query::{self, LocatedLog};
use svc_rpc_http::shape as rpc;
use svc_store::{ReadView, StoredBlock};

use crate::convert::*;
use crate::lane::on_lane;
use crate::reply;
use crate::types::*;

fn head_info(b: &StoredBlock) -> HeadInfo {
    let h = &b.header;
    HeadInfo {
        number: num(h.number),
        hash: buffer(b.hash.as_slice()),
        parent_hash: buffer(h.parent_hash.as_slice()),
        timestamp: num(h.timestamp),
        timestamp_ms: num(svc_primitives::header_time_ms(h)),
        gas_limit: num(h.gas_limit),
        gas_used: num(h.gas_used),
        base_fee_per_gas: from_u64(h.base_fee_per_gas.unwrap_or_default()),
        state_root: buffer(h.state_root.as_slice()),
    }
}

/// Run `f`, turning a panic into a JS error instead of unwinding across N-API.
pub(crate) fn guarded<T>(f: impl FnOnce() -> napi::Result<T>) -> napi::Result<T> {
    catch_unwind(AssertUnwindSafe(f)).unwrap_or_else(|panic| {
        let msg = panic
            .downcast_ref::<String>()
            .map(String::as_str)
            .or_else(|| panic.downcast_ref::<&str>().copied())
            .unwrap_or("unknown panic");
        Err(js_error(format!("internal error: {msg}")))
    })
}

/// The chain as it was at one head, pinned by `Chain.pinState` for `Chain.rewindTo`.
#[napi]
pub struct PinnedState {
    /// None once released: the database it pinned may then close.
    view: parking_lot::Mutex<Option<Arc<ReadView>>>,
    head_number: u64,
}

#[napi]
impl PinnedState {
    /// The number of the head it holds.
    #[napi(getter)]
    pub fn head_number(&self) -> i64 {
        self.head_number as i64
    }

    /// Lets go of the pinned state now (rather than when the object is collected), so that the
    /// versions it kept can be compacted and the database closed; rewindTo refuses it afterwards.
    #[napi]
    pub fn release(&self) {
        self.view.lock().take();
    }
}

/// The chain database and execution engine of one data directory.
#[napi]
pub struct Chain {
    inner: Option<Arc<svc_evm::Chain>>,
}

impl Chain {
    fn chain(&self) -> napi::Result<&Arc<svc_evm::Chain>> {
        self.inner.as_ref().ok_or_else(|| js_error("chain is closed"))
    }

    /// The engine behind this handle, for other bindings that serve it.
    pub(crate) fn shared(&self) -> napi::Result<Arc<svc_evm::Chain>> {
        Ok(self.chain()?.clone())
    }

    fn view(&self) -> napi::Result<Arc<ReadView>> {
        Ok(self.chain()?.view())
    }
}

fn select(view: &ReadView, sel: &BlockSelector) -> napi::Result<Option<StoredBlock>> {
    let number = match (&sel.number, &sel.hash) {
        (Some(n), None) => to_count(*n, "block number")?,
        (None, Some(h)) => match view.number_by_hash(&to_b256(h, "block hash")?).map_err(js_error)? {
            Some(n) => n,
            None => return Ok(None),
        },
        _ => return Err(js_error("block selector needs exactly one of number or hash")),
    };
    view.block(number).map_err(js_error)
}

/// Block `block` of `view`, decoded (from the cache of recent blocks when it is there).
fn block_data(view: &ReadView, block: &StoredBlock) -> napi::Result<Arc<svc_store::BlockData>> {
    view.block_data(block.number()).map_err(js_error)?.ok_or_else(|| js_error("block is missing"))
}

fn genesis_spec(g: GenesisSpec) -> napi::Result<svc_evm::GenesisSpec> {
    let mut alloc = Vec::with_capacity(g.alloc.len());
    for a in g.alloc {
        let mut storage = Vec::new();
        for e in a.storage.unwrap_or_default() {
            storage.push((to_word(&e.slot, "storage slot")?, to_word(&e.value, "storage value")?));
        }
        alloc.push(svc_evm::GenesisAccount {
            address: to_address(&a.address, "genesis address")?,
            balance: to_u256(&a.balance, "genesis balance")?,
            nonce: a.nonce.as_ref().map(|n| to_u64(n, "genesis nonce")).transpose()?.unwrap_or(0),
            code: a.code.map(|c| Bytes::from(c.to_vec())),
            init_code: a.init_code.map(|c| Bytes::from(c.to_vec())),
            storage,
        });
    }
    Ok(svc_evm::GenesisSpec {
        chain_id: to_count(g.chain_id, "chain id")?,
        timestamp: to_count(g.timestamp, "genesis timestamp")?,
        gas_limit: to_count(g.gas_limit, "genesis gas limit")?,
        base_fee_per_gas: to_u64(&g.base_fee_per_gas, "genesis base fee")?,
        coinbase: to_address(&g.coinbase, "genesis coinbase")?,
        extra_data: Bytes::from(g.extra_data.to_vec()),
        alloc,
    })
}

fn call_request(req: CallRequest) -> napi::Result<svc_evm::CallRequest> {
    let access_list = match req.access_list {
        Some(list) => {
            let mut items = Vec::with_capacity(list.len());
            for e in list {
                let keys = e.storage_keys.iter().map(|k| to_b256(k, "access list storage key")).collect::<napi::Result<Vec<_>>>()?;
                items.push(svc_primitives::AccessListItem { address: to_address(&e.address, "access list address")?, storage_keys: keys });
            }
            Some(svc_primitives::AccessList(items))
        }
        None => None,
    };
    let authorization_list = match req.authorization_list {
        Some(list) => {
            let mut auths = Vec::with_capacity(list.len());
            for a in list {
                let inner = svc_primitives::Authorization {
                    chain_id: to_u256(&a.chain_id, "authorization chainId")?,
                    address: to_address(&a.address, "authorization address")?,
                    nonce: to_u64(&a.nonce, "authorization nonce")?,
                };
                let y_parity = u8::try_from(a.y_parity).map_err(|_| napi::Error::from_reason("authorization yParity out of range"))?;
                auths.push(svc_primitives::SignedAuthorization::new_unchecked(
                    inner,
                    y_parity,
                    to_u256(&a.r, "authorization r")?,
                    to_u256(&a.s, "authorization s")?,
                ));
            }
            Some(auths)
        }
        None => None,
    };
    Ok(svc_evm::CallRequest {
        from: req.from.as_deref().map(|a| to_address(a, "from")).transpose()?,
        to: req.to.as_deref().map(|a| to_address(a, "to")).transpose()?,
        gas: req.gas.as_ref().map(|g| to_u64(g, "gas")).transpose()?,
        gas_price: req.gas_price.as_ref().map(|g| to_u128(g, "gasPrice")).transpose()?,
        max_fee_per_gas: req.max_fee_per_gas.as_ref().map(|g| to_u128(g, "maxFeePerGas")).transpose()?,
        max_priority_fee_per_gas: req.max_priority_fee_per_gas.as_ref().map(|g| to_u128(g, "maxPriorityFeePerGas")).transpose()?,
        value: req.value.as_ref().map(|v| to_u256(v, "value")).transpose()?,
        data: req.data.map(|d| Bytes::from(d.to_vec())),
        nonce: req.nonce.as_ref().map(|n| to_u64(n, "nonce")).transpose()?,
        access_list,
        authorization_list,
    })
}

fn storage_words(words: &[StorageWord], what: &str) -> napi::Result<Vec<(svc_primitives::B256, svc_primitives::B256)>> {
    words.iter().map(|w| Ok((to_word(&w.slot, what)?, to_word(&w.value, what)?))).collect()
}

fn call_overrides(o: Option<CallOverridesJs>) -> napi::Result<svc_evm::CallOverrides> {
    let Some(o) = o else { return Ok(svc_evm::CallOverrides::default()) };
    let mut state = Vec::with_capacity(o.state.len());
    for a in &o.state {
        state.push(svc_evm::AccountOverride {
            address: to_address(&a.address, "override address")?,
            balance: a.balance.as_ref().map(|b| to_u256(b, "override balance")).transpose()?,
            nonce: a.nonce.as_ref().map(|n| to_u64(n, "override nonce")).transpose()?,
            code: a.code.as_ref().map(|c| Bytes::from(c.to_vec())),
            state: a.state.as_deref().map(|w| storage_words(w, "override state")).transpose()?,
            state_diff: a.state_diff.as_deref().map(|w| storage_words(w, "override stateDiff")).transpose()?,
        });
    }
    let block = match o.block {
        Some(b) => Some(svc_evm::BlockOverride {
            number: b.number.as_ref().map(|v| to_u64(v, "block number override")).transpose()?,
            time: b.time.as_ref().map(|v| to_u64(v, "block time override")).transpose()?,
            gas_limit: b.gas_limit.as_ref().map(|v| to_u64(v, "block gasLimit override")).transpose()?,
            fee_recipient: b.fee_recipient.as_deref().map(|a| to_address(a, "block feeRecipient override")).transpose()?,
            prev_randao: b.prev_randao.as_deref().map(|r| to_b256(r, "block prevRandao override")).transpose()?,
            base_fee: b.base_fee.as_ref().map(|v| to_u64(v, "block baseFeePerGas override")).transpose()?,
        }),
        None => None,
    };
    Ok(svc_evm::CallOverrides { state, block })
}

fn balance_move(m: &BalanceMoveJs) -> napi::Result<svc_evm::BalanceMove> {
    Ok(svc_evm::BalanceMove {
        from: m.from.as_ref().map(|a| to_address(a, "move from")).transpose()?,
        to: m.to.as_ref().map(|a| to_address(a, "move to")).transpose()?,
        amount: to_u256(&m.amount, "move amount")?,
    })
}

fn account_edit(e: &AccountEditJs) -> napi::Result<svc_evm::AccountEdit> {
    let word = |b: &Buffer, what: &str| to_b256(b, what).map(|w| svc_primitives::U256::from_be_bytes(w.0));
    Ok(svc_evm::AccountEdit {
        address: to_address(&e.address, "edited account")?,
        nonce: e.nonce.as_ref().map(|n| to_u64(n, "edited nonce")).transpose()?,
        code: e.code.as_ref().map(|c| Bytes::from(c.to_vec())),
        storage: e.storage.iter().flatten().map(|s| Ok((word(&s.slot, "edited slot")?, word(&s.value, "edited value")?))).collect::<napi::Result<Vec<_>>>()?,
    })
}

fn system_outcome(o: SystemTxOutcome) -> napi::Result<(usize, svc_evm::SystemOutcome)> {
    let mut logs = Vec::with_capacity(o.logs.len());
    for l in o.logs {
        let topics = l.topics.iter().map(|t| to_b256(t, "log topic")).collect::<napi::Result<Vec<_>>>()?;
        let data = svc_primitives::LogData::new(topics, Bytes::from(l.data.to_vec())).ok_or_else(|| js_error("a log has more than 4 topics"))?;
        // The address is the module's, set when the transaction is applied.
        logs.push(svc_primitives::Log { address: Default::default(), data });
    }
    let outcome = svc_evm::SystemOutcome {
        success: o.success,
        gas_used: to_u64(&o.gas_used, "gasUsed")?,
        logs,
        moves: o.moves.iter().map(balance_move).collect::<napi::Result<Vec<_>>>()?,
    };
    Ok((o.index as usize, outcome))
}

/// Every application key/value under a prefix, at the head.
#[napi(object)]
pub struct AppEntry {
    pub key: Buffer,
    pub value: Buffer,
}

/// A transaction's place: its block and its index there.
#[napi(object)]
pub struct TxPosition {
    pub block_number: i64,
    pub index: u32,
}

/// What Parity's `trace_filter` asks for (addresses 20 bytes; empty lists match any).
#[napi(object)]
pub struct ParityTraceFilterJs {
    pub from_block: i64,
    pub to_block: i64,
    pub from_addresses: Vec<Buffer>,
    pub to_addresses: Vec<Buffer>,
    pub after: u32,
    pub count: u32,
}

/// An account's number of non-zero storage slots.
#[napi(object)]
pub struct SlotCount {
    pub address: Buffer,
    pub count: i64,
}

fn status_str(s: CallStatus) -> String {
    s.as_str().to_string()
}

#[napi]
impl Chain {
    /// Open (or create with `genesis`) the chain in `dataDir`.
    #[napi(factory)]
    pub fn open(data_dir: String, genesis: GenesisSpec, options: ChainOptions) -> napi::Result<Self> {
        guarded(|| {
            let spec = genesis_spec(genesis)?;
            let defaults = ChainConfig::default();
            let config = ChainConfig {
                rpc_gas_cap: to_count(options.rpc_gas_cap, "rpcGasCap")?,
                rpc_evm_timeout: match options.rpc_evm_timeout_ms {
                    Some(ms) => std::time::Duration::from_millis(to_count(ms, "rpcEvmTimeoutMs")?),
                    None => defaults.rpc_evm_timeout,
                },
                max_response_bytes: match options.max_response_bytes {
                    Some(n) => usize::try_from(to_count(n, "maxResponseBytes")?).map_err(|_| js_error("maxResponseBytes is too large"))?,
                    None => defaults.max_response_bytes,
                },
                state_history: to_count(options.state_history, "stateHistory")?,
            };
            let chain = svc_evm::Chain::open(&PathBuf::from(data_dir), &spec, config).map_err(js_error)?;
            Ok(Self { inner: Some(Arc::new(chain)) })
        })
    }

    #[napi]
    pub fn head(&self) -> napi::Result<HeadInfo> {
        guarded(|| Ok(head_info(&self.chain()?.head().map_err(js_error)?)))
    }

    #[napi]
    pub fn next_base_fee(&self) -> napi::Result<BigInt> {
        guarded(|| {
            let head = self.chain()?.head().map_err(js_error)?;
            let h = &head.header;
            Ok(from_u64(next_base_fee(h.gas_used, h.gas_limit, h.base_fee_per_gas.unwrap_or_default())))
        })
    }

    #[napi]
    pub fn decode_transaction(&self, raw: Buffer) -> napi::Result<DecodedTx> {
        guarded(|| {
            let tx = SignedTransaction::decode(&raw).map_err(js_error)?;
            let from = tx.recover_sender().map_err(js_error)?;
            let account = self.view()?.flat_account(&from).map_err(js_error)?.unwrap_or_default();
            Ok(crate::decode::decoded_tx(&tx, &from, &account))
        })
    }

    #[napi(ts_return_type = "Record<string, unknown>")]
    pub fn pending_transaction_json(&self, raw: Buffer, from: Buffer) -> napi::Result<serde_json::Value> {
        guarded(|| {
            let tx = SignedTransaction::decode(&raw).map_err(js_error)?;
            Ok(rpc::transaction(&tx, &to_address(&from, "from")?, None))
        })
    }

    /// Execute, seal and commit the next block on the block lane: a thread that no read uses.
    #[napi(ts_return_type = "Promise<ProducedBlock>")]
    pub fn produce_block<'env>(&self, env: &'env Env, req: ProduceBlockRequest) -> napi::Result<Object<'env>> {
        guarded(|| {
            let request = block_request(req)?;
            let chain = self.chain()?.clone();
            let submitted = std::time::Instant::now();
            on_lane(
                env,
                &svc_lanes::lanes().block,
                move || {
                    let queued = submitted.elapsed();
                    chain.produce_block(request).map(|out| (out, queued)).map_err(js_error)
                },
                |(out, queued)| Ok(produced_block(&out, queued)),
            )
        })
    }

    /// ABCI's FinalizeBlock: execute and seal the next block on the block lane without writing
    /// it; the result carries its hash and state root. `commitBlock(hash)` writes it.
    #[napi(ts_return_type = "Promise<ProducedBlock>")]
    pub fn finalize_block<'env>(&self, env: &'env Env, req: ProduceBlockRequest) -> napi::Result<Object<'env>> {
        guarded(|| {
            let request = block_request(req)?;
            let chain = self.chain()?.clone();
            let submitted = std::time::Instant::now();
            on_lane(
                env,
                &svc_lanes::lanes().block,
                move || {
                    let queued = submitted.elapsed();
                    chain.finalize_block(request).map(|out| (out, queued)).map_err(js_error)
                },
                |(out, queued)| Ok(produced_block(&out, queued)),
            )
        })
    }

    /// ABCI's Commit: writes the finalized block with this hash in one batch, on the block lane.
    #[napi(ts_return_type = "Promise<ProducedBlock>")]
    pub fn commit_block<'env>(&self, env: &'env Env, hash: Buffer) -> napi::Result<Object<'env>> {
        guarded(|| {
            let hash = to_b256(&hash, "block hash")?;
            let chain = self.chain()?.clone();
            let submitted = std::time::Instant::now();
            on_lane(
                env,
                &svc_lanes::lanes().block,
                move || {
                    let queued = submitted.elapsed();
                    chain.commit_block(hash).map(|out| (out, queued)).map_err(js_error)
                },
                |(out, queued)| Ok(produced_block(&out, queued)),
            )
        })
    }

    /// The state of every block up to the head as it is now, held for `rewindTo` (the devnet's
    /// `evm_snapshot`). It costs little to hold: old versions the database would compact away stay
    /// until it is dropped.
    #[napi]
    pub fn pin_state(&self) -> napi::Result<PinnedState> {
        guarded(|| {
            let view = self.view()?;
            Ok(PinnedState { head_number: view.head_number(), view: parking_lot::Mutex::new(Some(view)) })
        })
    }

    /// The devnet's `evm_revert`: rewinds the database (state, blocks, receipts, indexes, module
    /// records) to `pinned` on the block lane, between blocks; resolves to the head it moved back to.
    #[napi(ts_return_type = "Promise<HeadInfo>")]
    pub fn rewind_to<'env>(&self, env: &'env Env, pinned: &PinnedState) -> napi::Result<Object<'env>> {
        guarded(|| {
            let chain = self.chain()?.clone();
            let view = pinned.view.lock().clone().ok_or_else(|| js_error("the pinned state was released"))?;
            on_lane(env, &svc_lanes::lanes().block, move || chain.rewind_to(&view).map_err(js_error), |head| Ok(head_info(&head)))
        })
    }

    /// Drops a finalized block that will not be committed.
    #[napi]
    pub fn discard_finalized(&self) -> napi::Result<()> {
        guarded(|| {
            self.chain()?.discard_finalized();
            Ok(())
        })
    }

    /// The header and inputs of stored block `number` (null beyond the head), for replays.
    #[napi]
    pub fn get_block_inputs(&self, number: i64) -> napi::Result<Option<BlockInputs>> {
        guarded(|| {
            let view = self.view()?;
            let number = to_count(number, "block number")?;
            let Some(block) = view.block(number).map_err(js_error)? else { return Ok(None) };
            let body = view.body(number).map_err(js_error)?.ok_or_else(|| js_error(format!("the body of block {number} is missing")))?;
            Ok(Some(BlockInputs {
                head: head_info(&block),
                coinbase: buffer(block.header.beneficiary.as_slice()),
                extra_data: buffer(&block.header.extra_data),
                txs: body.txs.iter().map(|t| buffer(t)).collect(),
                messages: body.messages.iter().map(|m| buffer(m)).collect(),
            }))
        })
    }

    #[napi]
    pub fn block_number_by_hash(&self, hash: Buffer) -> napi::Result<Option<i64>> {
        guarded(|| Ok(self.view()?.number_by_hash(&to_b256(&hash, "block hash")?).map_err(js_error)?.map(num)))
    }

    #[napi(ts_return_type = "Record<string, unknown> | null")]
    pub fn get_block(&self, sel: BlockSelector, full_transactions: bool) -> napi::Result<Option<serde_json::Value>> {
        guarded(|| {
            let view = self.view()?;
            let Some(block) = select(&view, &sel)? else { return Ok(None) };
            let data = block_data(&view, &block)?;
            Ok(Some(rpc::block(&data.block, &data.body, full_transactions)))
        })
    }

    /// The block object without its transactions, with their number as `transactionCount`.
    #[napi(ts_return_type = "Record<string, unknown> | null")]
    pub fn get_block_summary(&self, sel: BlockSelector) -> napi::Result<Option<serde_json::Value>> {
        guarded(|| {
            let view = self.view()?;
            let Some(block) = select(&view, &sel)? else { return Ok(None) };
            let data = block_data(&view, &block)?;
            Ok(Some(rpc::block_summary(&data.block, &data.body)))
        })
    }

    #[napi]
    pub fn get_block_transaction_count(&self, sel: BlockSelector) -> napi::Result<Option<u32>> {
        guarded(|| {
            let view = self.view()?;
            let Some(block) = select(&view, &sel)? else { return Ok(None) };
            let body = view.body(block.number()).map_err(js_error)?.ok_or_else(|| js_error("block body is missing"))?;
            Ok(Some(body.txs.len() as u32))
        })
    }

    #[napi(ts_return_type = "Record<string, unknown>[] | null")]
    pub fn get_block_receipts(&self, sel: BlockSelector) -> napi::Result<Option<Vec<serde_json::Value>>> {
        guarded(|| {
            let view = self.view()?;
            let Some(block) = select(&view, &sel)? else { return Ok(None) };
            let data = block_data(&view, &block)?;
            Ok(Some(rpc::block_receipts(&data).map_err(js_error)?))
        })
    }

    #[napi(ts_return_type = "Record<string, unknown> | null")]
    pub fn get_transaction_by_hash(&self, hash: Buffer) -> napi::Result<Option<serde_json::Value>> {
        guarded(|| {
            let (view, hash) = (self.view()?, to_b256(&hash, "transaction hash")?);
            rpc::mined_transaction(&view, &hash).map_err(js_error)
        })
    }

    #[napi(ts_return_type = "Record<string, unknown> | null")]
    pub fn get_transaction_by_block_and_index(&self, sel: BlockSelector, index: i64) -> napi::Result<Option<serde_json::Value>> {
        guarded(|| {
            let view = self.view()?;
            let Some(block) = select(&view, &sel)? else { return Ok(None) };
            let index = to_count(index, "transaction index")? as usize;
            let data = block_data(&view, &block)?;
            rpc::transaction_at(&data, index).map_err(js_error)
        })
    }

    #[napi(ts_return_type = "Record<string, unknown> | null")]
    pub fn get_transaction_receipt(&self, hash: Buffer) -> napi::Result<Option<serde_json::Value>> {
        guarded(|| {
            let (view, hash) = (self.view()?, to_b256(&hash, "transaction hash")?);
            rpc::mined_receipt(&view, &hash).map_err(js_error)
        })
    }

    #[napi]
    pub fn get_account(&self, address: Buffer, block_number: i64) -> napi::Result<AccountState> {
        guarded(|| {
            let address = to_address(&address, "address")?;
            let account = self.chain()?.account(&address, to_count(block_number, "block number")?).map_err(chain_error)?;
            Ok(AccountState {
                nonce: from_u64(account.nonce),
                balance: from_u256(account.balance),
                code_hash: buffer(account.code_hash.as_slice()),
            })
        })
    }

    /// getAccount of each address at one block, in one call (the pool refreshes every sender a
    /// block touched: thousands of them after a full block).
    #[napi]
    pub fn get_accounts(&self, addresses: Vec<Buffer>, block_number: i64) -> napi::Result<Vec<AccountState>> {
        guarded(|| {
            let chain = self.chain()?;
            let number = to_count(block_number, "block number")?;
            let view = chain.view();
            let state = chain.state_at(&view, number).map_err(chain_error)?;
            addresses
                .iter()
                .map(|a| {
                    let account = state.account(&to_address(a, "address")?).map_err(js_error)?.unwrap_or_default();
                    Ok(AccountState { nonce: from_u64(account.nonce), balance: from_u256(account.balance), code_hash: buffer(account.code_hash.as_slice()) })
                })
                .collect()
        })
    }

    #[napi]
    pub fn get_code(&self, address: Buffer, block_number: i64) -> napi::Result<Buffer> {
        guarded(|| {
            let address = to_address(&address, "address")?;
            Ok(buffer(&self.chain()?.code(&address, to_count(block_number, "block number")?).map_err(chain_error)?))
        })
    }

    #[napi]
    pub fn get_storage_at(&self, address: Buffer, slot: Buffer, block_number: i64) -> napi::Result<Buffer> {
        guarded(|| {
            let address = to_address(&address, "address")?;
            let slot = to_word(&slot, "storage slot")?;
            let value = self.chain()?.storage(&address, &slot, to_count(block_number, "block number")?).map_err(chain_error)?;
            Ok(buffer(&value.to_be_bytes::<32>()))
        })
    }

    /// eth_call on the exec lane (refused with code QueueFull when its queue is full).
    #[napi(ts_return_type = "Promise<CallResult>")]
    pub fn call<'env>(&self, env: &'env Env, req: CallRequest, block_number: i64, overrides: Option<CallOverridesJs>) -> napi::Result<Object<'env>> {
        guarded(|| {
            let (chain, request, block) = (self.chain()?.clone(), call_request(req)?, to_count(block_number, "block number")?);
            let overrides = call_overrides(overrides)?;
            on_lane(env, &svc_lanes::lanes().exec, move || chain.call_with_overrides(&request, block, &overrides).map_err(chain_error), |out| {
                Ok(CallResult { status: status_str(out.status), output: buffer(&out.output), gas_used: from_u64(out.gas_used), error: out.error })
            })
        })
    }

    /// geth's debug traces of block `number`'s transactions under the tracer `options` names
    /// (geth's tracing options as JSON), on the exec lane, as JSON bytes within the reply limit:
    /// `[{txHash, result}]` for all of them, or the trace of the one at `index`. Errors carry a
    /// code: TRACE_OPTIONS (the options), TRACE_NOT_FOUND, TRACE_UNAVAILABLE (a block written
    /// before the node kept what re-executing it needs), TRACE_LIMIT, RESPONSE_TOO_LARGE.
    #[napi(ts_return_type = "Promise<Buffer>")]
    pub fn debug_trace_block<'env>(&self, env: &'env Env, number: i64, index: Option<u32>, options: String) -> napi::Result<Object<'env>> {
        guarded(|| {
            let (chain, number) = (self.chain()?.clone(), to_count(number, "block number")?);
            let opts = trace_options(&options)?;
            on_lane(
                env,
                &svc_lanes::lanes().exec,
                move || {
                    let traces = chain.debug_trace_block(number, index.map(|i| i as usize), &opts).map_err(trace_error)?;
                    let cap = chain.config().max_response_bytes;
                    match index {
                        Some(_) => match traces.first() {
                            Some((_, trace)) => reply::json_bytes(trace, cap),
                            None => Err(coded_error("TRACE_NOT_FOUND", format!("transaction not found in block #{number}"))),
                        },
                        None => {
                            let list: Vec<TxTrace<'_>> = traces.iter().map(|(hash, result)| TxTrace { tx_hash: *hash, result }).collect();
                            reply::json_bytes(&list, cap)
                        }
                    }
                },
                reply::to_buffer,
            )
        })
    }

    /// eth_simulateV1 on the state after `block_number`, on the exec lane: geth's result as JSON
    /// bytes within the reply limit (the simulated blocks with their calls), or a coded SIMULATE
    /// error whose text starts with geth's code (EVM_TIMEOUT past the RPC EVM timeout). With
    /// `trace_transfers`, ether moves are logged as ERC-20 Transfer logs (geth's traceTransfers).
    #[napi(ts_return_type = "Promise<Buffer>")]
    pub fn simulate<'env>(&self, env: &'env Env, blocks: Vec<SimulateBlockJs>, block_number: i64, validation: bool, trace_transfers: bool) -> napi::Result<Object<'env>> {
        guarded(|| {
            let (chain, number) = (self.chain()?.clone(), to_count(block_number, "block number")?);
            let blocks = blocks
                .into_iter()
                .map(|b| {
                    Ok(svc_evm::call::SimulateBlock {
                        overrides: call_overrides(b.overrides)?,
                        calls: b.calls.into_iter().map(call_request).collect::<napi::Result<Vec<_>>>()?,
                    })
                })
                .collect::<napi::Result<Vec<_>>>()?;
            on_lane(
                env,
                &svc_lanes::lanes().exec,
                move || match chain.simulate(&blocks, number, validation, trace_transfers).map_err(chain_error)? {
                    Ok(simulated) => reply::json_bytes(&simulated.iter().map(simulated_block_json).collect::<Vec<_>>(), chain.config().max_response_bytes),
                    Err(e) => Err(coded_error("SIMULATE", format!("{} {}", e.code, e.message))),
                },
                reply::to_buffer,
            )
        })
    }

    /// The value transfers and creations inside block `number`'s transactions (the explorer's
    /// internal transactions), from its call traces, on the backfill lane.
    #[napi(ts_return_type = "Promise<Array<InternalTransaction>>")]
    pub fn internal_transactions<'env>(&self, env: &'env Env, number: i64) -> napi::Result<Object<'env>> {
        guarded(|| {
            let (chain, number) = (self.chain()?.clone(), to_count(number, "block number")?);
            on_lane(env, &svc_lanes::lanes().backfill, move || chain.internal_transactions(number).map_err(trace_error), |list| {
                Ok(list.into_iter().map(internal_transaction).collect::<Vec<_>>())
            })
        })
    }

    /// The value transfers and creations inside the transaction at `index` of block `number`
    /// (Otterscan's internal operations), from its call trace, on the exec lane.
    #[napi(ts_return_type = "Promise<Array<InternalTransaction>>")]
    pub fn internal_operations<'env>(&self, env: &'env Env, number: i64, index: u32) -> napi::Result<Object<'env>> {
        guarded(|| {
            let (chain, number) = (self.chain()?.clone(), to_count(number, "block number")?);
            on_lane(env, &svc_lanes::lanes().exec, move || chain.internal_operations(number, index as usize).map_err(trace_error), |list| {
                Ok(list.into_iter().map(internal_transaction).collect::<Vec<_>>())
            })
        })
    }

    /// Parity's traces (reth's `trace_block`, or `trace_transaction` for the one at `index`) of
    /// block `number`'s transactions, on the exec lane, as JSON bytes within the reply limit.
    /// Errors carry the codes of debugTraceBlock.
    #[napi(ts_return_type = "Promise<Buffer>")]
    pub fn parity_trace_block<'env>(&self, env: &'env Env, number: i64, index: Option<u32>) -> napi::Result<Object<'env>> {
        guarded(|| {
            let (chain, number) = (self.chain()?.clone(), to_count(number, "block number")?);
            on_lane(
                env,
                &svc_lanes::lanes().exec,
                move || {
                    let traces = chain.parity_trace_block(number, index.map(|i| i as usize)).map_err(trace_error)?;
                    reply::json_bytes(&traces, chain.config().max_response_bytes)
                },
                reply::to_buffer,
            )
        })
    }

    /// Parity's `trace_filter` over stored blocks, on the exec lane, as JSON bytes within the
    /// reply limit (one trace budget for all its blocks).
    #[napi(ts_return_type = "Promise<Buffer>")]
    pub fn parity_trace_filter<'env>(&self, env: &'env Env, filter: ParityTraceFilterJs) -> napi::Result<Object<'env>> {
        guarded(|| {
            let chain = self.chain()?.clone();
            let addresses = |list: &[Buffer], what: &str| list.iter().map(|a| to_address(a, what)).collect::<napi::Result<Vec<_>>>();
            let filter = svc_evm::debug_trace::TraceFilter {
                from_block: to_count(filter.from_block, "fromBlock")?,
                to_block: to_count(filter.to_block, "toBlock")?,
                from_addresses: addresses(&filter.from_addresses, "fromAddress")?,
                to_addresses: addresses(&filter.to_addresses, "toAddress")?,
                after: filter.after as usize,
                count: filter.count as usize,
            };
            on_lane(
                env,
                &svc_lanes::lanes().exec,
                move || {
                    let traces = chain.parity_trace_filter(&filter).map_err(trace_error)?;
                    reply::json_bytes(&traces, chain.config().max_response_bytes)
                },
                reply::to_buffer,
            )
        })
    }

    /// Up to `limit` places of the transactions in `address`'s explorer history, from block
    /// `from_block` up, or down when `descending` (an index read).
    #[napi]
    pub fn address_history(&self, address: Buffer, from_block: i64, limit: u32, descending: bool) -> napi::Result<Vec<TxPosition>> {
        guarded(|| {
            let address = to_address(&address, "address")?;
            let from_block = to_count(from_block, "block number")?;
            let chain = self.chain()?;
            let store = chain.store();
            let scan = |prefix: &[u8], from: &[u8], limit: usize, reverse: bool| {
                store.service_scan("explorer", prefix, Some(from), limit, reverse).map_err(|e| svc_index::IndexError::Read(e.to_string()))
            };
            let places = svc_index::address_history(&scan, &address, from_block, limit as usize, descending).map_err(js_error)?;
            Ok(places.into_iter().map(|(block, index)| TxPosition { block_number: block as i64, index }).collect())
        })
    }

    /// geth's debug trace of a call on the state after `block_number` (debug_traceCall), as JSON
    /// bytes within the reply limit.
    #[napi(ts_return_type = "Promise<Buffer>")]
    pub fn debug_trace_call<'env>(&self, env: &'env Env, req: CallRequest, block_number: i64, options: String) -> napi::Result<Object<'env>> {
        guarded(|| {
            let (chain, request, block) = (self.chain()?.clone(), call_request(req)?, to_count(block_number, "block number")?);
            let opts = trace_options(&options)?;
            on_lane(
                env,
                &svc_lanes::lanes().exec,
                move || {
                    let trace = chain.debug_trace_call(&request, block, &opts).map_err(trace_error)?;
                    reply::json_bytes(&trace, chain.config().max_response_bytes)
                },
                reply::to_buffer,
            )
        })
    }

    /// A call watched by the validation tracer, with code overrides, on the exec lane: a bundler's
    /// simulation of a user operation (refused with code QueueFull when its queue is full).
    #[napi(ts_return_type = "Promise<ValidationTraceResult>")]
    pub fn trace_call<'env>(&self, env: &'env Env, req: CallRequest, block_number: i64, overrides: Vec<CodeOverride>) -> napi::Result<Object<'env>> {
        guarded(|| {
            let (chain, request, block) = (self.chain()?.clone(), call_request(req)?, to_count(block_number, "block number")?);
            let overrides = overrides
                .iter()
                .map(|o| Ok((to_address(&o.address, "override address")?, Bytes::from(o.code.to_vec()))))
                .collect::<napi::Result<Vec<_>>>()?;
            on_lane(env, &svc_lanes::lanes().exec, move || chain.trace_call(&request, block, &overrides).map_err(chain_error), |t| {
                let frames = t
                    .frames
                    .iter()
                    .map(|f| TracedFrame {
                        parent: f.parent.map_or(-1, |p| p as i32),
                        depth: f.depth as u32,
                        kind: f.kind.as_str().to_string(),
                        from: buffer(f.from.as_slice()),
                        to: buffer(f.to.as_slice()),
                        code_address: buffer(f.code_address.as_slice()),
                        has_code: f.has_code,
                        selector: buffer(&f.selector),
                        value: from_u256(f.value),
                        gas_limit: from_u64(f.gas_limit),
                        gas_used: from_u64(f.gas_used),
                        success: f.success,
                        reverted: f.reverted,
                        out_of_gas: f.out_of_gas,
                        output: buffer(&f.output),
                        opcodes: f.opcodes.iter().map(|(op, n)| vec![u32::from(*op), *n]).collect(),
                        gas_not_before_call: f.gas_not_before_call,
                        storage: f
                            .storage
                            .iter()
                            .map(|s| TracedStorageAccess { address: buffer(s.address.as_slice()), slot: buffer(s.slot.as_slice()), read: s.read, write: s.write, transient: s.transient })
                            .collect(),
                        code_accesses: f
                            .code_accesses
                            .iter()
                            .map(|c| TracedCodeAccess { opcode: u32::from(c.opcode), address: buffer(c.address.as_slice()), has_code: c.has_code })
                            .collect(),
                    })
                    .collect();
                Ok(ValidationTraceResult {
                    status: status_str(t.outcome.status),
                    output: buffer(&t.outcome.output),
                    gas_used: from_u64(t.outcome.gas_used),
                    error: t.outcome.error,
                    frames,
                    keccak: t.keccak.iter().map(|(w, h)| vec![buffer(w.as_slice()), buffer(h.as_slice())]).collect(),
                })
            })
        })
    }

    /// eth_estimateGas on the exec lane (refused with code QueueFull when its queue is full).
    #[napi(ts_return_type = "Promise<EstimateResult>")]
    pub fn estimate_gas<'env>(&self, env: &'env Env, req: CallRequest, block_number: i64, overrides: Option<CallOverridesJs>) -> napi::Result<Object<'env>> {
        guarded(|| {
            let (chain, request, block) = (self.chain()?.clone(), call_request(req)?, to_count(block_number, "block number")?);
            let overrides = call_overrides(overrides)?;
            on_lane(env, &svc_lanes::lanes().exec, move || chain.estimate_gas_with_overrides(&request, block, &overrides).map_err(chain_error), |out| {
                Ok(EstimateResult { status: status_str(out.status), gas: from_u64(out.gas), output: buffer(&out.output), error: out.error })
            })
        })
    }

    /// eth_createAccessList on the exec lane (refused with code QueueFull when its queue is full).
    #[napi(ts_return_type = "Promise<AccessListResult>")]
    pub fn create_access_list<'env>(&self, env: &'env Env, req: CallRequest, block_number: i64, overrides: Option<CallOverridesJs>) -> napi::Result<Object<'env>> {
        guarded(|| {
            let (chain, request, block) = (self.chain()?.clone(), call_request(req)?, to_count(block_number, "block number")?);
            let overrides = call_overrides(overrides)?;
            on_lane(env, &svc_lanes::lanes().exec, move || chain.create_access_list(&request, block, &overrides).map_err(chain_error), |out| {
                let access_list = out
                    .access_list
                    .iter()
                    .map(|item| AccessListEntry {
                        address: buffer(item.address.as_slice()),
                        storage_keys: item.storage_keys.iter().map(|k| buffer(k.as_slice())).collect(),
                    })
                    .collect();
                Ok(AccessListResult {
                    access_list,
                    gas_used: from_u64(out.gas_used),
                    status: status_str(out.status),
                    output: buffer(&out.output),
                    error: out.error,
                    invalid: out.invalid,
                })
            })
        })
    }

    /// eth_getProof on the exec lane: EIP-1186's answer as geth gives it (the account and the
    /// storage slots with their Merkle proofs against the state root of block `block_number`), as
    /// JSON bytes within the reply limit (refused with code QueueFull when busy).
    #[napi(ts_return_type = "Promise<Buffer>")]
    pub fn get_proof<'env>(&self, env: &'env Env, address: Buffer, keys: Vec<ProofKey>, block_number: i64) -> napi::Result<Object<'env>> {
        guarded(|| {
            let chain = self.chain()?.clone();
            let address = to_address(&address, "address")?;
            let slots = keys.iter().map(|k| to_word(&k.slot, "storage key")).collect::<napi::Result<Vec<_>>>()?;
            let exact: Vec<bool> = keys.iter().map(|k| k.exact).collect();
            let block = to_count(block_number, "block number")?;
            on_lane(
                env,
                &svc_lanes::lanes().exec,
                move || {
                    let p = chain.proof(&address, &slots, block).map_err(chain_error)?;
                    reply::json_bytes(&proof_json(&address, &p, &exact), chain.config().max_response_bytes)
                },
                reply::to_buffer,
            )
        })
    }

    /// The EIP-2718 encoding of a mined transaction, by hash (null when not mined).
    #[napi]
    pub fn get_raw_transaction(&self, hash: Buffer) -> napi::Result<Option<Buffer>> {
        guarded(|| {
            let (view, hash) = (self.view()?, to_b256(&hash, "transaction hash")?);
            let Some((number, index)) = view.tx_location(&hash).map_err(js_error)? else { return Ok(None) };
            let Some(body) = view.body(number).map_err(js_error)? else { return Ok(None) };
            Ok(body.txs.get(index as usize).map(|raw| buffer(raw)))
        })
    }

    /// The EIP-2718 encoding of the transaction at `index` of a block (null when there is none).
    #[napi]
    pub fn get_raw_transaction_by_block_and_index(&self, sel: BlockSelector, index: i64) -> napi::Result<Option<Buffer>> {
        guarded(|| {
            let view = self.view()?;
            let Some(block) = select(&view, &sel)? else { return Ok(None) };
            let index = to_count(index, "transaction index")? as usize;
            let data = block_data(&view, &block)?;
            Ok(data.body.txs.get(index).map(|raw| buffer(raw)))
        })
    }

    /// The RLP of a block's header (null when there is no such block).
    #[napi]
    pub fn get_raw_header(&self, sel: BlockSelector) -> napi::Result<Option<Buffer>> {
        guarded(|| {
            let view = self.view()?;
            let Some(block) = select(&view, &sel)? else { return Ok(None) };
            Ok(Some(buffer(&alloy_rlp::encode(&block.header))))
        })
    }

    /// The EIP-2718 encodings of a block's receipts (null when there is no such block).
    #[napi]
    pub fn get_raw_receipts(&self, sel: BlockSelector) -> napi::Result<Option<Vec<Buffer>>> {
        guarded(|| {
            let view = self.view()?;
            let Some(block) = select(&view, &sel)? else { return Ok(None) };
            let data = block_data(&view, &block)?;
            Ok(Some(data.receipts.iter().map(|r| buffer(&r.encode_2718())).collect()))
        })
    }

    /// eth_getLogs on the logs lane (refused with code QueueFull when its queue is full).
    #[napi(ts_return_type = "Promise<LogQueryResult>")]
    pub fn get_logs<'env>(&self, env: &'env Env, filter: LogFilter) -> napi::Result<Object<'env>> {
        guarded(|| {
            let query = log_query(&filter)?;
            let view = self.view()?;
            on_lane(env, &svc_lanes::lanes().logs, move || query::find_logs(&view, &query).map_err(js_error), |out| {
                let logs: Vec<serde_json::Value> = out.logs.iter().map(|l: &LocatedLog| rpc::log(l)).collect();
                Ok(LogQueryResult { logs, truncated: out.truncated, last_block: out.last_block })
            })
        })
    }

    /// eth_getLogs' answer on the logs lane as JSON bytes, within the reply limit (refused with
    /// code QueueFull when the lane's queue is full, RESPONSE_TOO_LARGE past the limit).
    #[napi(ts_return_type = "Promise<LogQueryJson>")]
    pub fn get_logs_json<'env>(&self, env: &'env Env, filter: LogFilter) -> napi::Result<Object<'env>> {
        guarded(|| {
            let mut query = log_query(&filter)?;
            let chain = self.chain()?.clone();
            let cap = chain.config().max_response_bytes;
            // A log's JSON is more than twice its bytes (hex): stop gathering well before the limit.
            query.max_bytes = cap / 2;
            let view = self.view()?;
            on_lane(
                env,
                &svc_lanes::lanes().logs,
                move || {
                    let out = query::find_logs(&view, &query).map_err(js_error)?;
                    if out.too_large {
                        return Err(reply::too_large(cap));
                    }
                    let json = if out.truncated { Vec::new() } else { reply::json_bytes(&LogsJson(&out.logs), cap)? };
                    Ok((json, out.truncated, out.last_block))
                },
                |(json, truncated, last_block)| Ok(LogQueryJson { json: Buffer::from(json), truncated, last_block }),
            )
        })
    }

    #[napi(ts_return_type = "Record<string, unknown>[]")]
    pub fn get_block_logs(&self, block_number: i64) -> napi::Result<Vec<serde_json::Value>> {
        guarded(|| {
            let view = self.view()?;
            let logs = query::block_logs(&view, to_count(block_number, "block number")?).map_err(js_error)?;
            Ok(logs.iter().map(rpc::log).collect())
        })
    }

    #[napi]
    pub fn fee_history(&self, newest_block: i64, block_count: i64, reward_percentiles: Vec<f64>) -> napi::Result<FeeHistoryResult> {
        guarded(|| {
            let view = self.view()?;
            let h = query::fee_history(
                &view,
                to_count(newest_block, "newest block")?,
                to_count(block_count, "block count")?,
                &reward_percentiles,
            )
            .map_err(js_error)?;
            Ok(FeeHistoryResult {
                oldest_block: num(h.oldest_block),
                base_fee_per_gas: h.base_fee_per_gas.into_iter().map(from_u128).collect(),
                gas_used_ratio: h.gas_used_ratio,
                reward: h.reward.into_iter().map(|r| r.into_iter().map(from_u128).collect()).collect(),
            })
        })
    }

    /// Where the rent module records dormant accounts (`prefix` ++ lowercase hex address): eth_call and
    /// eth_estimateGas at the head then revert calls into them, as blocks do.
    #[napi]
    pub fn set_dormancy_prefix(&self, prefix: Buffer) -> napi::Result<()> {
        guarded(|| {
            self.chain()?.set_dormancy_prefix(Some(prefix.to_vec()));
            Ok(())
        })
    }

    /// A value the application modules committed with a block.
    #[napi]
    pub fn get_app_value(&self, key: Buffer) -> napi::Result<Option<Buffer>> {
        guarded(|| Ok(self.view()?.app_value(&key).map_err(js_error)?.map(Buffer::from)))
    }

    /// The head's number of non-zero storage slots of `address`, kept by the store as blocks change
    /// storage (never counted by scanning).
    #[napi]
    pub fn storage_slot_count(&self, address: Buffer) -> napi::Result<i64> {
        guarded(|| {
            let address = to_address(&address, "address")?;
            Ok(self.view()?.slot_count(&address).map_err(js_error)? as i64)
        })
    }

    /// The accounts whose slot count block `number` changed, with their new counts, ascending by address.
    #[napi]
    pub fn block_slot_changes(&self, number: i64) -> napi::Result<Vec<SlotCount>> {
        guarded(|| {
            let changes = self.view()?.block_slot_changes(to_count(number, "block number")?).map_err(js_error)?;
            Ok(changes.into_iter().map(|(a, n)| SlotCount { address: Buffer::from(a.as_slice().to_vec()), count: n as i64 }).collect())
        })
    }

    /// The accounts with code that block `number`'s execution loaded (called, created or read), ascending.
    #[napi]
    pub fn block_active_code(&self, number: i64) -> napi::Result<Vec<Buffer>> {
        guarded(|| {
            let active = self.view()?.block_active_code(to_count(number, "block number")?).map_err(js_error)?;
            Ok(active.into_iter().map(|a| Buffer::from(a.as_slice().to_vec())).collect())
        })
    }

    /// Every value the application modules committed under `prefix`, in key order, at the head.
    #[napi]
    pub fn get_app_entries(&self, prefix: Buffer) -> napi::Result<Vec<AppEntry>> {
        guarded(|| {
            let entries = self.view()?.app_entries(&prefix).map_err(js_error)?;
            Ok(entries.into_iter().map(|(k, v)| AppEntry { key: Buffer::from(k), value: Buffer::from(v) }).collect())
        })
    }

    /// Indexes stored block `number` for the explorer when the index has reached the block before it, on the backfill lane.
    #[napi(ts_return_type = "Promise<boolean>")]
    pub fn index_stored_block<'env>(&self, env: &'env Env, number: i64) -> napi::Result<Object<'env>> {
        guarded(|| {
            let (chain, number) = (self.chain()?.clone(), to_count(number, "block number")?);
            on_lane(env, &svc_lanes::lanes().backfill, move || chain.index_stored_block(number).map_err(js_error), Ok)
        })
    }

    /// Records a token's name, symbol and decimals in the explorer index and its search terms.
    #[napi]
    pub fn set_token_metadata(&self, token: Buffer, name: Option<String>, symbol: Option<String>, decimals: Option<u32>) -> napi::Result<()> {
        guarded(|| {
            let token = to_address(&token, "token")?;
            let decimals = decimals.map(|d| u8::try_from(d).map_err(|_| js_error("decimals above 255"))).transpose()?;
            self.chain()?.set_token_metadata(&token, name.as_deref(), symbol.as_deref(), decimals).map_err(js_error)
        })
    }

    /// A value of a service column family ("explorer" or "users"), as last written.
    #[napi]
    pub fn service_get(&self, cf: String, key: Buffer) -> napi::Result<Option<Buffer>> {
        guarded(|| Ok(self.chain()?.store().service_get(&cf, &key).map_err(js_error)?.map(Buffer::from)))
    }

    /// Up to `limit` entries under `prefix` of a service column family, from `from` (inclusive) on, or backward.
    #[napi]
    pub fn service_scan(&self, cf: String, prefix: Buffer, from: Option<Buffer>, limit: u32, reverse: bool) -> napi::Result<Vec<AppEntry>> {
        guarded(|| {
            let entries = self
                .chain()?
                .store()
                .service_scan(&cf, &prefix, from.as_deref(), limit as usize, reverse)
                .map_err(js_error)?;
            Ok(entries.into_iter().map(|(k, v)| AppEntry { key: Buffer::from(k), value: Buffer::from(v) }).collect())
        })
    }

    /// Writes to a service column family in one atomic batch (no value deletes the key).
    #[napi]
    pub fn service_write(&self, cf: String, writes: Vec<ServiceWrite>) -> napi::Result<()> {
        guarded(|| {
            let writes: Vec<(Vec<u8>, Option<Vec<u8>>)> = writes.into_iter().map(|w| (w.key.to_vec(), w.value.map(|v| v.to_vec()))).collect();
            self.chain()?.store().service_write(&cf, &writes).map_err(js_error)
        })
    }

    /// Release the database; tasks already running finish on their own handle.
    #[napi]
    pub fn close(&mut self) {
        self.inner = None;
    }
}

/// The native block request from the one JavaScript gives.
fn block_request(req: ProduceBlockRequest) -> napi::Result<BlockRequest> {
    let senders = req.senders.iter().map(|s| to_address(s, "sender")).collect::<napi::Result<Vec<_>>>()?;
    let app_writes = req
        .app_writes
        .unwrap_or_default()
        .into_iter()
        .map(|w| Ok(RecordWrite { module: to_address(&w.module, "module")?, key: w.key.to_vec(), value: w.value.map(|v| v.to_vec()) }))
        .collect::<napi::Result<Vec<_>>>()?;
    Ok(BlockRequest {
        timestamp_ms: to_count(req.timestamp_ms, "timestampMs")?,
        coinbase: to_address(&req.coinbase, "coinbase")?,
        extra_data: Bytes::from(req.extra_data.to_vec()),
        gas_limit: to_count(req.gas_limit, "gasLimit")?,
        txs: req.txs.iter().map(|t| Bytes::from(t.to_vec())).collect(),
        senders,
        app_writes,
        system: req.system.unwrap_or_default().into_iter().map(system_outcome).collect::<napi::Result<Vec<_>>>()?,
        pre_moves: req.pre_moves.unwrap_or_default().iter().map(balance_move).collect::<napi::Result<Vec<_>>>()?,
        block_moves: req.block_moves.unwrap_or_default().iter().map(balance_move).collect::<napi::Result<Vec<_>>>()?,
        messages: req.messages.unwrap_or_default().iter().map(|m| Bytes::from(m.to_vec())).collect(),
        account_edits: req.account_edits.unwrap_or_default().iter().map(account_edit).collect::<napi::Result<Vec<_>>>()?,
        dormancy: req
            .dormancy
            .map(|d| -> napi::Result<svc_evm::Dormancy> {
                Ok(svc_evm::Dormancy {
                    prefix: d.prefix.to_vec(),
                    dormant: d.dormant.iter().map(|a| to_address(a, "dormant")).collect::<napi::Result<Vec<_>>>()?,
                    reactivated: d.reactivated.iter().map(|a| to_address(a, "reactivated")).collect::<napi::Result<Vec<_>>>()?,
                })
            })
            .transpose()?,
    })
}

fn produced_block(out: &svc_evm::ProducedBlock, queued: std::time::Duration) -> ProducedBlock {
    let ms = |d: std::time::Duration| d.as_secs_f64() * 1e3;
    ProducedBlock {
        head: head_info(&out.block),
        included: out.included.iter().map(|h| buffer(h.as_slice())).collect(),
        rejected: out.rejected.iter().map(|(h, reason)| RejectedTx { hash: buffer(h.as_slice()), reason: reason.clone() }).collect(),
        deferred: out.deferred.iter().map(|h| buffer(h.as_slice())).collect(),
        timings: BlockTimings {
            queued_ms: ms(queued),
            execute_ms: ms(out.timings.execute),
            root_ms: ms(out.timings.state_root),
            commit_ms: ms(out.timings.commit),
        },
    }
}

/// eth_getProof's answer (geth's AccountResult): an absent account reads as empty; a key given as a
/// full 32-byte hash comes back as given, a shorter one as a quantity.
fn proof_json(address: &svc_primitives::Address, p: &svc_evm::AccountProof, exact: &[bool]) -> serde_json::Value {
    let account = p.account.clone().unwrap_or_default();
    let data = |bytes: &[u8]| format!("0x{}", hex::encode(bytes));
    let storage: Vec<serde_json::Value> = p
        .storage
        .iter()
        .zip(exact)
        .map(|(s, exact)| {
            serde_json::json!({
                "key": if *exact { data(s.key.as_slice()) } else { format!("{:#x}", svc_primitives::U256::from_be_bytes(s.key.0)) },
                "value": format!("{:#x}", s.value),
                "proof": s.proof.iter().map(|n| data(n)).collect::<Vec<_>>(),
            })
        })
        .collect();
    serde_json::json!({
        "address": data(address.as_slice()),
        "accountProof": p.proof.iter().map(|n| data(n)).collect::<Vec<_>>(),
        "balance": format!("{:#x}", account.balance),
        "codeHash": data(account.code_hash.as_slice()),
        "nonce": format!("{:#x}", account.nonce),
        "storageHash": data(account.storage_root.as_slice()),
        "storageProof": storage,
    })
}

/// A log filter from JavaScript as the store's query.
fn log_query(filter: &LogFilter) -> napi::Result<query::LogFilter> {
    let mut topics = Vec::with_capacity(filter.topics.len());
    for position in &filter.topics {
        topics.push(match position {
            Some(list) => Some(list.iter().map(|t| to_b256(t, "topic")).collect::<napi::Result<Vec<_>>>()?),
            None => None,
        });
    }
    Ok(query::LogFilter {
        from_block: to_count(filter.from_block, "fromBlock")?,
        to_block: to_count(filter.to_block, "toBlock")?,
        addresses: filter.addresses.iter().map(|a| to_address(a, "address")).collect::<napi::Result<Vec<_>>>()?,
        topics,
        limit: to_count(filter.limit, "limit")? as usize,
        max_bytes: 0,
    })
}

/// Logs written as eth_getLogs answers them, one after another (no list of JSON values in between).
struct LogsJson<'a>(&'a [LocatedLog]);

impl serde::Serialize for LogsJson<'_> {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeSeq;
        let mut seq = serializer.serialize_seq(Some(self.0.len()))?;
        for log in self.0 {
            seq.serialize_element(&rpc::log(log))?;
        }
        seq.end()
    }
}

/// One transaction's trace in a block's: geth's `{txHash, result}`.
#[derive(serde::Serialize)]
struct TxTrace<'a> {
    #[serde(rename = "txHash")]
    tx_hash: svc_primitives::B256,
    result: &'a alloy_rpc_types_trace::geth::GethTrace,
}

/// geth's tracing options from their JSON ({} or null: the default struct logger).
fn trace_options(json: &str) -> napi::Result<alloy_rpc_types_trace::geth::GethDebugTracingOptions> {
    if json.trim().is_empty() || json.trim() == "null" {
        return Ok(Default::default());
    }
    serde_json::from_str(json).map_err(|e| coded_error("TRACE_OPTIONS", format!("tracing options: {e}")))
}

fn internal_transaction(t: svc_evm::debug_trace::InternalTx) -> InternalTransaction {
    InternalTransaction {
        tx_index: t.tx_index,
        tx_hash: buffer(t.tx_hash.as_slice()),
        trace_address: t.trace_address,
        kind: t.kind.to_string(),
        from: buffer(t.from.as_slice()),
        to: buffer(t.to.as_slice()),
        value: from_u256(t.value),
        gas: from_u64(t.gas),
        gas_used: from_u64(t.gas_used),
        error: t.error,
    }
}

fn trace_error(err: svc_evm::debug_trace::TraceError) -> napi::Error {
    use svc_evm::debug_trace::TraceError;
    match err {
        TraceError::Options(text) => coded_error("TRACE_OPTIONS", text),
        TraceError::NotFound(text) => coded_error("TRACE_NOT_FOUND", text),
        TraceError::Unavailable(text) => coded_error("TRACE_UNAVAILABLE", text),
        TraceError::Limit(text) => coded_error("TRACE_LIMIT", text),
        TraceError::Chain(e) => chain_error(e),
    }
}

/// A simulated block as geth's eth_simulateV1 answers it: the block's fields (transactions as
/// hashes) and its calls with status, return data, gas used, logs and error.
fn simulated_block_json(b: &svc_evm::call::SimulatedBlock) -> serde_json::Value {
    use serde_json::json;
    let h = &b.header;
    let q = |n: u64| format!("0x{n:x}");
    let mut log_index = 0u64;
    let calls: Vec<serde_json::Value> = b
        .calls
        .iter()
        .enumerate()
        .map(|(i, c)| {
            let logs: Vec<serde_json::Value> = c
                .logs
                .iter()
                .map(|l| {
                    let v = json!({
                        "address": l.address,
                        "topics": l.topics(),
                        "data": l.data.data,
                        "blockNumber": q(h.number),
                        "blockHash": b.hash,
                        "blockTimestamp": q(h.timestamp),
                        "transactionHash": c.tx_hash,
                        "transactionIndex": q(i as u64),
                        "logIndex": q(log_index),
                        "removed": false,
                    });
                    log_index += 1;
                    v
                })
                .collect();
            let success = c.outcome.status == svc_evm::CallStatus::Success;
            let mut call = json!({
                "status": if success { "0x1" } else { "0x0" },
                "returnData": c.outcome.output,
                "gasUsed": q(c.outcome.gas_used),
                "logs": logs,
            });
            if !success {
                let reverted = c.outcome.status == svc_evm::CallStatus::Revert;
                call["error"] = json!({
                    "code": if reverted { 3 } else { -32015 },
                    "message": c.outcome.error.clone().unwrap_or_else(|| "execution reverted".into()),
                    "data": c.outcome.output,
                });
            }
            call
        })
        .collect();
    json!({
        "number": q(h.number),
        "hash": b.hash,
        "parentHash": h.parent_hash,
        "timestamp": q(h.timestamp),
        "gasLimit": q(h.gas_limit),
        "gasUsed": q(h.gas_used),
        "baseFeePerGas": q(h.base_fee_per_gas.unwrap_or_default()),
        "miner": h.beneficiary,
        "feeRecipient": h.beneficiary,
        "mixHash": h.mix_hash,
        "prevRandao": h.mix_hash,
        "transactionsRoot": h.transactions_root,
        "receiptsRoot": h.receipts_root,
        "logsBloom": h.logs_bloom,
        "extraData": h.extra_data,
        "difficulty": "0x0",
        "nonce": "0x0000000000000000",
        "sha3Uncles": h.ommers_hash,
        "uncles": [],
        "transactions": b.calls.iter().map(|c| c.tx_hash).collect::<Vec<_>>(),
        "withdrawals": [],
        "withdrawalsRoot": h.withdrawals_root,
        "calls": calls,
    })
}
