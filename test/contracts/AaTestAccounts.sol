// SPDX-License-Identifier: MIT
pragma solidity ^0.8.23;

// Accounts and factories for tests of a bundler's ERC-7562 validation rules, against EntryPoint v0.7
// (PackedUserOperation) and v0.6 (UserOperation). Each one exists to be either clean under the rules
// or to break exactly one of them, so a test can tell the bundler accepts or rejects it for that rule.
//
// Self-contained on purpose: the structs are copied from @account-abstraction/contracts (0.7.0
// interfaces/PackedUserOperation.sol, 0.6.0 interfaces/UserOperation.sol) rather than imported, because
// test/support/solc.ts compiles with solc 0.8.30 and resolves @openzeppelin/contracts to the project's
// own (5.x) release, which the 0.6.0 sources do not compile against. Only the field order matters:
// it fixes the validateUserOp selector the EntryPoint calls.

/// The user operation EntryPoint v0.7 passes to validateUserOp.
struct PackedUserOperation {
    address sender;
    uint256 nonce;
    bytes initCode;
    bytes callData;
    bytes32 accountGasLimits;
    uint256 preVerificationGas;
    bytes32 gasFees;
    bytes paymasterAndData;
    bytes signature;
}

/// The user operation EntryPoint v0.6 passes to validateUserOp.
struct UserOperation {
    address sender;
    uint256 nonce;
    bytes initCode;
    bytes callData;
    uint256 callGasLimit;
    uint256 verificationGasLimit;
    uint256 preVerificationGas;
    uint256 maxFeePerGas;
    uint256 maxPriorityFeePerGas;
    bytes paymasterAndData;
    bytes signature;
}

/// What both versions' open accounts share: the entry point check, the prefund, the validationData a
/// test asks for through the signature, and execute. Touches no storage and no banned opcode, so
/// validation of an operation from it is clean under ERC-7562.
abstract contract OpenAccountBase {
    /// The validationData meaning "signature invalid" (aggregator address 1).
    uint256 internal constant SIG_VALIDATION_FAILED = 1;

    address public immutable entryPoint;

    constructor(address entryPoint_) {
        entryPoint = entryPoint_;
    }

    modifier onlyEntryPoint() {
        require(msg.sender == entryPoint, "account: not from entry point");
        _;
    }

    /// Runs the operation's call; a revert of dest is bubbled up so the test sees its reason.
    function execute(address dest, uint256 value, bytes calldata data) external onlyEntryPoint {
        (bool success, bytes memory result) = dest.call{value: value}(data);
        if (!success) {
            assembly {
                revert(add(result, 32), mload(result))
            }
        }
    }

    /// Takes deposits and refunds.
    receive() external payable {}

    /// Pays the prefund, then answers from the signature alone (no key: anyone may use the account):
    /// 64 bytes are abi.encode(uint48 validUntil, uint48 validAfter), packed into validationData with
    /// aggregator 0 so a test can exercise time ranges; exactly 0xdead is a failed signature; anything
    /// else is valid without a time range.
    function _validate(bytes calldata signature, uint256 missingAccountFunds) internal returns (uint256 validationData) {
        if (missingAccountFunds != 0) {
            // As SimpleAccount: the gas stipend is a constant (no GAS opcode) and the result is ignored,
            // since the EntryPoint checks the deposit itself.
            (bool success,) = payable(msg.sender).call{value: missingAccountFunds, gas: type(uint256).max}("");
            (success);
        }
        if (signature.length == 64) {
            (uint48 validUntil, uint48 validAfter) = abi.decode(signature, (uint48, uint48));
            return (uint256(validAfter) << 208) | (uint256(validUntil) << 160);
        }
        if (signature.length == 2 && bytes2(signature) == 0xdead) return SIG_VALIDATION_FAILED;
        return 0;
    }
}

/// An account for EntryPoint v0.7 that accepts any operation (see OpenAccountBase._validate).
contract OpenAccountV07 is OpenAccountBase {
    constructor(address entryPoint_) OpenAccountBase(entryPoint_) {}

    function validateUserOp(PackedUserOperation calldata op, bytes32, uint256 missingAccountFunds)
        public
        virtual
        onlyEntryPoint
        returns (uint256 validationData)
    {
        return _validate(op.signature, missingAccountFunds);
    }
}

/// An account for EntryPoint v0.6 that accepts any operation (see OpenAccountBase._validate).
contract OpenAccountV06 is OpenAccountBase {
    constructor(address entryPoint_) OpenAccountBase(entryPoint_) {}

    function validateUserOp(UserOperation calldata op, bytes32, uint256 missingAccountFunds)
        public
        virtual
        onlyEntryPoint
        returns (uint256 validationData)
    {
        return _validate(op.signature, missingAccountFunds);
    }
}

/// OpenAccountV07 that reads block.timestamp during validation: TIMESTAMP is banned there (OP-011),
/// so a bundler must reject its operations although the EntryPoint would accept them.
contract TimestampAccountV07 is OpenAccountV07 {
    constructor(address entryPoint_) OpenAccountV07(entryPoint_) {}

    function validateUserOp(PackedUserOperation calldata op, bytes32 userOpHash, uint256 missingAccountFunds)
        public
        override
        returns (uint256 validationData)
    {
        validationData = super.validateUserOp(op, userOpHash, missingAccountFunds);
        // Never true; the read is the point (and the comparison keeps the optimizer from dropping it).
        if (block.timestamp == 0) return SIG_VALIDATION_FAILED;
    }
}

/// OpenAccountV06 that reads block.timestamp during validation (see TimestampAccountV07).
contract TimestampAccountV06 is OpenAccountV06 {
    constructor(address entryPoint_) OpenAccountV06(entryPoint_) {}

    function validateUserOp(UserOperation calldata op, bytes32 userOpHash, uint256 missingAccountFunds)
        public
        override
        returns (uint256 validationData)
    {
        validationData = super.validateUserOp(op, userOpHash, missingAccountFunds);
        if (block.timestamp == 0) return SIG_VALIDATION_FAILED;
    }
}

/// A factory of OpenAccountV07 that touches no storage of its own: valid under ERC-7562 when unstaked.
/// The account's address depends on the salt only (and this factory and the entry point).
contract CleanFactoryV07 {
    address public immutable entryPoint;

    constructor(address entryPoint_) {
        entryPoint = entryPoint_;
    }

    /// Deploys the account with CREATE2 (once: the single CREATE2 a factory may do), or returns it
    /// when it is already there.
    function createAccount(uint256 salt) public virtual returns (address) {
        address account = getAddress(salt);
        if (account.code.length > 0) return account;
        return address(new OpenAccountV07{salt: bytes32(salt)}(entryPoint));
    }

    function getAddress(uint256 salt) public view returns (address) {
        bytes32 initCodeHash = keccak256(abi.encodePacked(type(OpenAccountV07).creationCode, abi.encode(entryPoint)));
        return address(uint160(uint256(keccak256(abi.encodePacked(bytes1(0xff), address(this), bytes32(salt), initCodeHash)))));
    }
}

/// A factory of OpenAccountV06 that touches no storage of its own (see CleanFactoryV07).
contract CleanFactoryV06 {
    address public immutable entryPoint;

    constructor(address entryPoint_) {
        entryPoint = entryPoint_;
    }

    function createAccount(uint256 salt) public virtual returns (address) {
        address account = getAddress(salt);
        if (account.code.length > 0) return account;
        return address(new OpenAccountV06{salt: bytes32(salt)}(entryPoint));
    }

    function getAddress(uint256 salt) public view returns (address) {
        bytes32 initCodeHash = keccak256(abi.encodePacked(type(OpenAccountV06).creationCode, abi.encode(entryPoint)));
        return address(uint160(uint256(keccak256(abi.encodePacked(bytes1(0xff), address(this), bytes32(salt), initCodeHash)))));
    }
}

/// CleanFactoryV07 that also writes its own storage while creating: an unstaked factory may not
/// (STO-031), so a bundler must reject an operation deploying through it unless it is staked.
contract CountingFactoryV07 is CleanFactoryV07 {
    uint256 public created;

    constructor(address entryPoint_) CleanFactoryV07(entryPoint_) {}

    function createAccount(uint256 salt) public override returns (address) {
        created += 1;
        return super.createAccount(salt);
    }
}

/// CleanFactoryV06 that also writes its own storage while creating (see CountingFactoryV07).
contract CountingFactoryV06 is CleanFactoryV06 {
    uint256 public created;

    constructor(address entryPoint_) CleanFactoryV06(entryPoint_) {}

    function createAccount(uint256 salt) public override returns (address) {
        created += 1;
        return super.createAccount(salt);
    }
}
