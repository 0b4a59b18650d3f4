// SPDX-License-Identifier: Apache-2.0
pragma solidity ^0.8.24;

/// Functions that revert in the two ways clients must decode: a reason string and a custom error.
contract Reverter {
    error Unauthorized(address caller, uint256 code);

    event Touched(address indexed by, uint256 value);

    uint256 public touches;

    function failWithReason() external pure {
        revert("Reverter: no way");
    }

    function failWithCustomError() external view {
        revert Unauthorized(msg.sender, 42);
    }

    /// Reverts only when asked to, so that a state-changing call can fail or succeed on demand.
    function touch(uint256 value, bool fail) external {
        require(!fail, "Reverter: asked to fail");
        touches += 1;
        emit Touched(msg.sender, value);
    }
}
