// SPDX-License-Identifier: Apache-2.0
pragma solidity ^0.8.24;

/// Values in storage: a word at slot 0 and a mapping at slot 1 (entry k at keccak256(k . 1)).
contract Vault {
    uint256 public stored;
    mapping(uint256 => uint256) public entries;

    constructor(uint256 value) {
        stored = value;
    }

    function put(uint256 key, uint256 value) external {
        entries[key] = value;
    }
}

/// Reads another contract's storage through calls, and the block and caller it runs with.
contract VaultReader {
    Vault public immutable vault;

    constructor(Vault v) {
        vault = v;
    }

    function read(uint256 key) external view returns (uint256 stored, uint256 entry) {
        return (vault.stored(), vault.entries(key));
    }

    function context()
        external
        view
        returns (uint256 number, uint256 time, uint256 gasLimit, address coinbase, uint256 baseFee, uint256 callerBalance)
    {
        return (block.number, block.timestamp, block.gaslimit, block.coinbase, block.basefee, msg.sender.balance);
    }
}
