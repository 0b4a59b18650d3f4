//! revm over svc-store state: genesis, block production, eth_call and eth_estimateGas.

pub mod access_list;
pub mod block;
pub mod call;
pub mod chain;
pub mod db;
pub mod deadline;
pub mod debug_trace;
pub mod dormancy;
pub mod errors;
pub mod genesis;
pub mod trace;
pub mod transfer_logs;
mod index;

pub use block::{
    block_time_ms, check_transaction, AccountEdit, header_problem, precheck, BalanceMove, BlockRequest, BlockTimings, FinalizedBlock, ProducedBlock, RecordWrite, Skip,
    SystemOutcome, TxCheck, TxCheckOutcome, TxViolation,
};
pub use dormancy::Dormancy;
pub use call::{AccessListOutcome, AccountOverride, BlockOverride, CallOutcome, CallOverrides, CallRequest, CallStatus, EstimateOutcome};
pub use trace::{CodeAccess, FrameKind, StorageAccess, TraceFrame, ValidationTrace};
pub use chain::{AccountProof, Chain, ChainConfig, StorageProof};
pub use errors::ChainError;
pub use genesis::{GenesisAccount, GenesisSpec};
