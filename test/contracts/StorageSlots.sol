// SPDX-License-Identifier: Apache-2.0
pragma solidity 0.8.30;

/// Writes and clears runs of storage slots (the node's slot counts and, later, rent).
contract StorageSlots {
    /// Sets slots start .. start + n - 1 to `value` (zero clears them).
    function set(uint256 start, uint256 n, uint256 value) external {
        for (uint256 i = 0; i < n; i++) {
            assembly {
                sstore(add(start, i), value)
            }
        }
    }
}
