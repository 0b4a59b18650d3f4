// SPDX-License-Identifier: MIT
pragma solidity ^0.8.20;

/// An EIP-7702 delegate: an account delegated to it runs this code on its own storage.
contract Delegate {
    uint256 public counter;

    event Pinged(address indexed self, address indexed sender, uint256 counter);

    /// Bumps the counter of the account that runs this code and reports who that is.
    function ping() external returns (address self, uint256 count) {
        counter += 1;
        emit Pinged(address(this), msg.sender, counter);
        return (address(this), counter);
    }

    function whoAmI() external view returns (address) {
        return address(this);
    }
}
