// SPDX-License-Identifier: Apache-2.0
pragma solidity ^0.8.20;

/// What the tracing tests call: storage, a log, a revert with a reason, and plain value.
contract TraceTarget {
    event Hit(address indexed from, uint256 value, uint256 v);

    uint256 public x;

    function hit(uint256 v) external payable {
        x = v;
        emit Hit(msg.sender, msg.value, v);
    }

    function boom() external pure {
        revert("boom");
    }

    /// A loop of `n` rounds: many steps for little gas.
    function spin(uint256 n) external pure returns (uint256 acc) {
        for (uint256 i = 0; i < n; i++) {
            acc += i;
        }
    }

    receive() external payable {}
}

/// Calls with value to several addresses, nested calls with a caught revert and a precompile, and a self-destruct.
contract TraceCaller {
    function fanout(address payable[] calldata to) external payable {
        uint256 each = msg.value / to.length;
        for (uint256 i = 0; i < to.length; i++) {
            (bool ok, ) = to[i].call{value: each}("");
            require(ok, "transfer failed");
        }
    }

    function nested(TraceTarget t) external payable {
        t.hit{value: msg.value}(7);
        try t.boom() {} catch {}
        (bool ok, ) = address(0x02).staticcall(abi.encode(uint256(1)));
        require(ok, "sha256 failed");
    }

    function destroy(address payable to) external {
        selfdestruct(to);
    }

    receive() external payable {}
}
