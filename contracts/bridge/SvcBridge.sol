// SPDX-License-Identifier: MIT
pragma solidity 0.8.30;

/// @title SvcBridge: the external chain's side of the svc bridge
/// @notice Locks ETH and ERC-20 deposits (each with an event the svc validators attest to) and
/// releases withdrawals only with signatures of validators holding more than 2/3 of the bridged
/// validator set's power. The set is updated by the same threshold. Every signed message names this
/// chain, this contract and the svc chain (so no signature is valid elsewhere), and carries a nonce or
/// an id that is used once (so nothing replays).
///
/// Signatures are passed aligned with the current set: `sigs[i]` is validator i's or empty (v = 0).
/// A signature that is present must recover to its validator (a wrong one reverts rather than being
/// skipped, so a relayer cannot pass forged data unnoticed); s must be in the lower half of the curve
/// order and v 27 or 28 (no malleable duplicates).
interface IERC20 {
    function transfer(address to, uint256 amount) external returns (bool);
    function transferFrom(address from, address to, uint256 amount) external returns (bool);
    function balanceOf(address account) external view returns (uint256);
}

contract SvcBridge {
    struct Signature {
        uint8 v;
        bytes32 r;
        bytes32 s;
    }

    /// Domain tags of the two signed messages.
    bytes32 public constant WITHDRAW_TAG = keccak256("svc-bridge/withdraw/v1");
    bytes32 public constant VALSET_TAG = keccak256("svc-bridge/valset/v1");
    /// secp256k1's order / 2: a signature's s must not exceed it.
    uint256 private constant HALF_ORDER = 0x7fffffffffffffffffffffffffffffff5d576e7357a4501ddfe92f46681b20a0;
    /// The largest set that fits a block's gas when every member signs.
    uint256 public constant MAX_VALIDATORS = 128;

    /// The svc chain's id, part of every signed message.
    uint256 public immutable svcChainId;

    address[] private _validators;
    uint256[] private _powers;
    uint256 public totalPower;
    /// The svc module's nonce of the set held here (the genesis set is 0).
    uint256 public valsetNonce;
    /// Deposits made so far; a deposit's nonce is its number (from 1).
    uint256 public depositCount;
    /// svc withdrawal ids already released.
    mapping(uint256 => bool) public released;
    /// Locked per token (address 0: ETH).
    mapping(address => uint256) public locked;
    uint256 private _entered;

    event Deposit(uint256 indexed nonce, address indexed token, address indexed sender, address recipient, uint256 amount);
    event Withdrawal(uint256 indexed id, address indexed token, address indexed recipient, uint256 amount);
    event ValsetUpdated(uint256 indexed nonce, address[] validators, uint256[] powers);

    error InvalidValset(string reason);
    error BadSignature(uint256 index);
    error NotEnoughPower(uint256 signed, uint256 total);
    error AlreadyReleased(uint256 id);
    error StaleValset(uint256 nonce, uint256 current);
    error ZeroAmount();
    error TransferFailed();
    error Reentered();

    modifier nonReentrant() {
        if (_entered == 1) revert Reentered();
        _entered = 1;
        _;
        _entered = 0;
    }

    constructor(uint256 svcChainId_, address[] memory validators_, uint256[] memory powers_) {
        svcChainId = svcChainId_;
        _setValset(validators_, powers_, 0);
    }

    /// The current set, in the order signatures follow.
    function validatorSet() external view returns (address[] memory validators, uint256[] memory powers, uint256 nonce) {
        return (_validators, _powers, valsetNonce);
    }

    /// Locks `msg.value` for `recipient` on svc.
    function depositETH(address recipient) external payable nonReentrant {
        if (msg.value == 0) revert ZeroAmount();
        locked[address(0)] += msg.value;
        emit Deposit(++depositCount, address(0), msg.sender, recipient, msg.value);
    }

    /// Locks `amount` of `token` (approved beforehand) for `recipient` on svc. What arrives is what is
    /// credited: a token that takes a fee on transfer deposits less than `amount`.
    function depositERC20(address token, uint256 amount, address recipient) external nonReentrant {
        if (amount == 0 || token == address(0)) revert ZeroAmount();
        uint256 before = IERC20(token).balanceOf(address(this));
        _call(token, abi.encodeCall(IERC20.transferFrom, (msg.sender, address(this), amount)));
        uint256 received = IERC20(token).balanceOf(address(this)) - before;
        if (received == 0) revert ZeroAmount();
        locked[token] += received;
        emit Deposit(++depositCount, token, msg.sender, recipient, received);
    }

    /// The digest the validators sign to release withdrawal `id`.
    function withdrawalDigest(uint256 id, address token, address recipient, uint256 amount) public view returns (bytes32) {
        return keccak256(abi.encode(WITHDRAW_TAG, block.chainid, address(this), svcChainId, id, token, recipient, amount));
    }

    /// The digest the current set signs to hand over to `validators_` with `powers_` at `nonce`.
    function valsetDigest(address[] memory validators_, uint256[] memory powers_, uint256 nonce) public view returns (bytes32) {
        return keccak256(abi.encode(VALSET_TAG, block.chainid, address(this), svcChainId, nonce, validators_, powers_));
    }

    /// Releases svc withdrawal `id` (burned on svc): anyone may relay it with the set's signatures.
    function withdraw(uint256 id, address token, address payable recipient, uint256 amount, Signature[] calldata sigs) external nonReentrant {
        if (released[id]) revert AlreadyReleased(id);
        if (amount == 0) revert ZeroAmount();
        _checkSignatures(withdrawalDigest(id, token, recipient, amount), sigs);
        released[id] = true;
        locked[token] -= amount;
        if (token == address(0)) {
            (bool ok, ) = recipient.call{value: amount}("");
            if (!ok) revert TransferFailed();
        } else {
            _call(token, abi.encodeCall(IERC20.transfer, (recipient, amount)));
        }
        emit Withdrawal(id, token, recipient, amount);
    }

    /// Hands the bridge over to the set svc's bridge module recorded at `nonce` (any higher nonce:
    /// updates the relayer missed are skipped, never replayed).
    function updateValset(address[] calldata validators_, uint256[] calldata powers_, uint256 nonce, Signature[] calldata sigs) external {
        if (nonce <= valsetNonce) revert StaleValset(nonce, valsetNonce);
        _checkSignatures(valsetDigest(validators_, powers_, nonce), sigs);
        _setValset(validators_, powers_, nonce);
    }

    function _setValset(address[] memory validators_, uint256[] memory powers_, uint256 nonce) private {
        uint256 n = validators_.length;
        if (n == 0 || n > MAX_VALIDATORS) revert InvalidValset("size");
        if (powers_.length != n) revert InvalidValset("powers");
        uint256 total;
        for (uint256 i = 0; i < n; i++) {
            // Sorted and distinct: one place per validator, no duplicate counted twice.
            if (validators_[i] == address(0) || (i > 0 && validators_[i] <= validators_[i - 1])) revert InvalidValset("order");
            if (powers_[i] == 0) revert InvalidValset("power");
            total += powers_[i];
        }
        _validators = validators_;
        _powers = powers_;
        totalPower = total;
        valsetNonce = nonce;
        emit ValsetUpdated(nonce, validators_, powers_);
    }

    /// More than 2/3 of the power must have signed `digest` (signed * 3 > total * 2).
    function _checkSignatures(bytes32 digest, Signature[] calldata sigs) private view {
        uint256 n = _validators.length;
        if (sigs.length != n) revert InvalidValset("signatures");
        uint256 signed;
        for (uint256 i = 0; i < n; i++) {
            Signature calldata sig = sigs[i];
            if (sig.v == 0) continue;
            if ((sig.v != 27 && sig.v != 28) || uint256(sig.s) > HALF_ORDER) revert BadSignature(i);
            address signer = ecrecover(digest, sig.v, sig.r, sig.s);
            if (signer == address(0) || signer != _validators[i]) revert BadSignature(i);
            signed += _powers[i];
        }
        if (signed * 3 <= totalPower * 2) revert NotEnoughPower(signed, totalPower);
    }

    /// A token call that must not fail: a revert, or a `false` answer, reverts (tokens that return nothing are accepted).
    function _call(address token, bytes memory data) private {
        (bool ok, bytes memory ret) = token.call(data);
        if (!ok || (ret.length > 0 && !abi.decode(ret, (bool))) || token.code.length == 0) revert TransferFailed();
    }
}
