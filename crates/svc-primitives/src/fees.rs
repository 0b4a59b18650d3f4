//! EIP-1559 base fee of the next block.

use alloy_eips::eip1559::{calc_next_block_base_fee, BaseFeeParams};

/// Base fee of the child of a block with these figures (elasticity 2, change denominator 8).
pub fn next_base_fee(parent_gas_used: u64, parent_gas_limit: u64, parent_base_fee: u64) -> u64 {
    calc_next_block_base_fee(parent_gas_used, parent_gas_limit, parent_base_fee, BaseFeeParams::ethereum())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn base_fee_moves_by_at_most_an_eighth() {
        // At the target (half the limit) the fee stays.
        assert_eq!(next_base_fee(15_000_000, 30_000_000, 1_000_000_000), 1_000_000_000);
        // A full block raises it by 12.5%.
        assert_eq!(next_base_fee(30_000_000, 30_000_000, 1_000_000_000), 1_125_000_000);
        // An empty block lowers it by 12.5%.
        assert_eq!(next_base_fee(0, 30_000_000, 1_000_000_000), 875_000_000);
        // Slightly above target: at least +1 wei.
        assert_eq!(next_base_fee(15_000_001, 30_000_000, 7), 8);
    }
}
