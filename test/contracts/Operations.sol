// SPDX-License-Identifier: Apache-2.0
pragma solidity ^0.8.20;

/// A contract made by Spawner: it holds what it was given until it leaves.
contract Child {
    constructor() payable {}

    function leave(address payable to) external {
        selfdestruct(to);
    }
}

/// What the Parity and Otterscan trace tests call: one transaction that creates (CREATE and
/// CREATE2) with value, sends value to an address and self-destructs a child; and a revert.
contract Spawner {
    function spawn(bytes32 salt, address payable payee) external payable returns (address a, address b) {
        uint256 part = msg.value / 3;
        Child c1 = new Child{value: part}();
        Child c2 = new Child{salt: salt, value: part}();
        (bool ok, ) = payee.call{value: msg.value - 2 * part}("");
        require(ok, "payment failed");
        c1.leave(payee);
        return (address(c1), address(c2));
    }

    function fail() external pure {
        revert("nope");
    }
}
