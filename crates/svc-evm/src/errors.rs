//! Errors of the chain engine and geth's texts for invalid transactions and EVM halts.

use alloy_primitives::Address;
use revm::context::result::{HaltReason, InvalidTransaction, OutOfGasError};
use svc_store::StoreError;

/// Why a chain operation failed as a whole.
#[derive(Debug, thiserror::Error)]
pub enum ChainError {
    #[error(transparent)]
    Store(#[from] StoreError),
    #[error("{0}")]
    Invalid(String),
    #[error("historical state not available")]
    StateUnavailable,
    #[error("evm failure: {0}")]
    Evm(String),
    /// The request ran past the RPC EVM timeout (geth's text).
    #[error("{0}")]
    Timeout(String),
}

/// geth's text for a transaction that fails validation against state (core/error.go wording).
pub fn invalid_tx_text(err: &InvalidTransaction, sender: Address) -> String {
    use InvalidTransaction as E;
    match err {
        E::PriorityFeeGreaterThanMaxFee => "max priority fee per gas higher than max fee per gas".into(),
        E::GasPriceLessThanBasefee => "max fee per gas less than block base fee".into(),
        E::CallerGasLimitMoreThanBlock => "exceeds block gas limit".into(),
        E::CallGasCostMoreThanGasLimit { initial_gas, gas_limit } => {
            format!("intrinsic gas too low: have {gas_limit}, want {initial_gas}")
        }
        E::GasFloorMoreThanGasLimit { gas_floor, gas_limit } => {
            format!("insufficient gas for floor data gas cost: have {gas_limit}, want {gas_floor}")
        }
        E::RejectCallerWithCode => format!("sender not an eoa: address {sender}"),
        E::LackOfFundForMaxFee { fee, balance } => {
            format!("insufficient funds for gas * price + value: address {sender} have {balance} want {fee}")
        }
        E::OverflowPaymentInTransaction => "gas uint64 overflow".into(),
        E::NonceOverflowInTransaction => format!("nonce has max value: address {sender}"),
        E::NonceTooHigh { tx, state } => format!("nonce too high: address {sender}, tx: {tx} state: {state}"),
        E::NonceTooLow { tx, state } => format!("nonce too low: address {sender}, tx: {tx} state: {state}"),
        E::CreateInitCodeSizeLimit => "max initcode size exceeded".into(),
        E::InvalidChainId | E::MissingChainId => "invalid chain id for signer".into(),
        E::TxGasLimitGreaterThanCap { gas_limit, cap } => format!("transaction gas limit too high (cap: {cap}, tx: {gas_limit})"),
        E::Eip4844NotSupported
        | E::Eip7702NotSupported
        | E::Eip7873NotSupported
        | E::BlobCreateTransaction
        | E::EmptyBlobs
        | E::AuthorizationListNotSupported => "transaction type not supported".into(),
        E::EmptyAuthorizationList => "EIP-7702 transaction with empty auth list".into(),
        other => other.to_string(),
    }
}

/// geth's text for an EVM halt (core/vm/errors.go wording).
pub fn halt_text(reason: &HaltReason) -> String {
    use HaltReason as H;
    match reason {
        H::OutOfGas(OutOfGasError::InvalidOperand) => "gas uint64 overflow".into(),
        H::OutOfGas(_) => "out of gas".into(),
        H::OpcodeNotFound | H::NotActivated => "invalid opcode".into(),
        H::InvalidFEOpcode => "invalid opcode: INVALID".into(),
        H::InvalidJump => "invalid jump destination".into(),
        H::StackUnderflow => "stack underflow".into(),
        H::StackOverflow => "stack limit reached 1024".into(),
        H::OutOfOffset => "return data out of bounds".into(),
        H::CreateCollision => "contract address collision".into(),
        H::PrecompileError => "precompile failed".into(),
        H::PrecompileErrorWithContext(msg) => msg.clone(),
        H::NonceOverflow => "nonce uint64 overflow".into(),
        H::CreateContractSizeLimit => "max code size exceeded".into(),
        H::CreateContractStartingWithEF => "invalid code: must not begin with 0xef".into(),
        H::CreateInitCodeSizeLimit => "max initcode size exceeded".into(),
        H::OverflowPayment => "gas uint64 overflow".into(),
        H::StateChangeDuringStaticCall | H::CallNotAllowedInsideStatic => "write protection".into(),
        H::OutOfFunds => "insufficient balance for transfer".into(),
        H::CallTooDeep => "max call depth exceeded".into(),
    }
}
