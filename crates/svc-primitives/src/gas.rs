//! Intrinsic gas under Prague: base cost, calldata, access list, initcode (EIP-3860), EIP-7702
//! authorizations and the EIP-7623 calldata floor.

use alloy_eips::eip2930::AccessList;

pub const TX_GAS: u64 = 21_000;
pub const TX_CREATE_GAS: u64 = 53_000;
pub const CALLDATA_ZERO_BYTE_GAS: u64 = 4;
pub const CALLDATA_NONZERO_BYTE_GAS: u64 = 16;
pub const ACCESS_LIST_ADDRESS_GAS: u64 = 2_400;
pub const ACCESS_LIST_STORAGE_KEY_GAS: u64 = 1_900;
pub const INITCODE_WORD_GAS: u64 = 2;
/// EIP-3860: twice the EIP-170 code size limit.
pub const MAX_INITCODE_SIZE: usize = 2 * 24_576;
/// EIP-7702: charged per authorization of a set-code transaction (part refunded at execution
/// when the authority already exists).
pub const PER_EMPTY_ACCOUNT_COST: u64 = 25_000;
/// EIP-7623: floor cost per calldata token.
pub const FLOOR_GAS_PER_TOKEN: u64 = 10;
/// EIP-7623: a non-zero byte counts as this many tokens.
pub const NONZERO_BYTE_TOKENS: u64 = 4;

/// The two minimums a transaction's gas limit must cover.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct IntrinsicGas {
    /// Charged before execution (geth's IntrinsicGas).
    pub intrinsic: u64,
    /// EIP-7623 floor: the least gas the transaction will be charged (geth's FloorDataGas).
    pub floor: u64,
}

impl IntrinsicGas {
    /// The smallest gas limit that can pass validation.
    pub fn minimum(&self) -> u64 {
        self.intrinsic.max(self.floor)
    }
}

/// Intrinsic gas and calldata floor of a transaction with this input, kind and access list.
pub fn intrinsic_gas(input: &[u8], is_create: bool, access_list: Option<&AccessList>) -> IntrinsicGas {
    let zeros = input.iter().filter(|b| **b == 0).count() as u64;
    let nonzeros = input.len() as u64 - zeros;
    let tokens = zeros + nonzeros * NONZERO_BYTE_TOKENS;
    let mut intrinsic = if is_create { TX_CREATE_GAS } else { TX_GAS };
    intrinsic += zeros * CALLDATA_ZERO_BYTE_GAS + nonzeros * CALLDATA_NONZERO_BYTE_GAS;
    if is_create {
        intrinsic += (input.len() as u64).div_ceil(32) * INITCODE_WORD_GAS;
    }
    if let Some(list) = access_list {
        for item in list.iter() {
            intrinsic += ACCESS_LIST_ADDRESS_GAS + item.storage_keys.len() as u64 * ACCESS_LIST_STORAGE_KEY_GAS;
        }
    }
    IntrinsicGas { intrinsic, floor: TX_GAS + tokens * FLOOR_GAS_PER_TOKEN }
}

#[cfg(test)]
mod tests {
    use super::*;
    use alloy_eips::eip2930::AccessListItem;
    use alloy_primitives::{Address, B256};

    #[test]
    fn plain_transfer_costs_21000() {
        assert_eq!(intrinsic_gas(&[], false, None), IntrinsicGas { intrinsic: 21_000, floor: 21_000 });
    }

    #[test]
    fn calldata_and_floor() {
        // 2 zero bytes, 3 non-zero: 2*4 + 3*16 = 56; tokens = 2 + 12 = 14, floor 21000 + 140.
        let g = intrinsic_gas(&[0, 1, 0, 2, 3], false, None);
        assert_eq!(g, IntrinsicGas { intrinsic: 21_056, floor: 21_140 });
        assert_eq!(g.minimum(), 21_140);
    }

    #[test]
    fn create_pays_initcode_words_and_access_list() {
        let code = vec![0xffu8; 33];
        let list = AccessList(vec![AccessListItem { address: Address::ZERO, storage_keys: vec![B256::ZERO, B256::ZERO] }]);
        let g = intrinsic_gas(&code, true, Some(&list));
        assert_eq!(g.intrinsic, 53_000 + 33 * 16 + 2 * 2 + 2_400 + 2 * 1_900);
        assert_eq!(g.floor, 21_000 + 33 * 4 * 10);
    }
}
