// SPDX-License-Identifier: Apache-2.0
pragma solidity ^0.8.20;

/// A contract that keeps storage and a balance, for the rent rules (docs/rent.md).
contract RentTarget {
    /// Sets slots start .. start + n - 1 to `value` (zero frees them).
    function set(uint256 start, uint256 n, uint256 value) external {
        for (uint256 i = 0; i < n; i++) {
            assembly {
                sstore(add(start, i), value)
            }
        }
    }

    /// The sum of slots start .. start + n - 1.
    function sum(uint256 start, uint256 n) external view returns (uint256 total) {
        for (uint256 i = 0; i < n; i++) {
            assembly {
                total := add(total, sload(add(start, i)))
            }
        }
    }

    receive() external payable {}
}

/// Calls another contract and reports how the call ended, keeping no storage of its own.
contract RentCaller {
    event Called(bool ok, bytes data);

    function callSum(address target, uint256 start, uint256 n) external {
        (bool ok, bytes memory data) = target.call(abi.encodeWithSignature("sum(uint256,uint256)", start, n));
        emit Called(ok, data);
    }
}

/// Writes slots of many RentTargets in one transaction (the rent benchmark fills a state with it).
contract RentFanout {
    function touch(address[] calldata targets, uint256 start, uint256 n, uint256 value) external {
        for (uint256 i = 0; i < targets.length; i++) {
            RentTarget(payable(targets[i])).set(start, n, value);
        }
    }
}
