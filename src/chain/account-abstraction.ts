// ERC-4337 in the built-in genesis (devnet and testnet): EntryPoint v0.6 and v0.7, each with the
// SimpleAccountFactory that wallets and SDKs use with it, deployed as on public networks: through the
// deterministic CREATE2 deployer (0x4e59b448…956C, which the chain then also has, with its public
// runtime code), with the public salts and the creation code of the @account-abstraction/contracts
// artifacts (entrypoints.generated.ts, copied by scripts/build-entrypoints.mjs). So each contract is
// at its public address with its public code: the EntryPoints create their SenderCreators and the
// factories their SimpleAccount implementations at CREATE(address, 1), and a factory's getAddress
// for an owner and salt is the account address public networks give (docs/account-abstraction.md).
//
// Genesis allocates one account, the deployer, with init code (genesis runs it as the deployer's
// constructor, at the deployer's address): a short program that replays the four public creations as
// the deployer's CREATE2s — each with its salt and creation code (the factories' with their
// EntryPoint appended), each checked to land at its public address, else genesis fails — and returns
// the deployer's runtime code. The created contracts are kept as created; the deployer ends at nonce
// 5 (1, and one per CREATE2), as four calls of its runtime code would leave it.
import { concat, encodeAbiParameters, getContractAddress, type Address, type Hex } from 'viem';
import type { GenesisAccount } from '../native/index.js';
import { parseAddress } from './address.js';
import { entryPointV06, entryPointV07, simpleAccountFactoryV06, simpleAccountFactoryV07 } from './entrypoints.generated.js';

/** EntryPoint v0.6 (@account-abstraction/contracts 0.6.0). */
export const ENTRY_POINT_V06 = '0x5FF137D4b0FDCD49DcA30c7CF57E578a026d2789';
/** EntryPoint v0.7 (@account-abstraction/contracts 0.7.0). */
export const ENTRY_POINT_V07 = '0x0000000071727De22E5E9d8BAf0edAc6f37da032';
/** SimpleAccountFactory of v0.6, constructed with ENTRY_POINT_V06. */
export const SIMPLE_ACCOUNT_FACTORY_V06 = '0x9406Cc6185a346906296840746125a0E44976454';
/** SimpleAccountFactory of v0.7, constructed with ENTRY_POINT_V07. */
export const SIMPLE_ACCOUNT_FACTORY_V07 = '0x91E60e0613810449d098b0b5Ec8b51A0FE8c8985';

/** The EntryPoints of the built-in genesis, oldest first. */
export const ENTRY_POINTS = [ENTRY_POINT_V06, ENTRY_POINT_V07] as const;

/** The deterministic CREATE2 deployer ("Arachnid's" deterministic-deployment-proxy), at its address on public networks. */
export const CREATE2_DEPLOYER = '0x4e59b44847b379578588920cA78FbF26c0B4956C';
/**
 * Its runtime code on public networks (69 bytes, keccak256 0x2fa86add…8f7e4989): called with a
 * 32-byte salt followed by creation code, it runs CREATE2(callvalue, code, salt) and returns the
 * 20-byte address, reverting when the creation fails.
 */
export const CREATE2_DEPLOYER_CODE: Hex =
  '0x7fffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffe03601600081602082378035828234f58015156039578182fd5b8082525050506014600cf3';

/** The salt the public EntryPoint v0.6 and both SimpleAccountFactories were created with. */
export const CREATE2_SALT_ZERO: Hex = '0x0000000000000000000000000000000000000000000000000000000000000000';
/** The salt the public EntryPoint v0.7 was created with. */
export const CREATE2_SALT_V07: Hex = '0x90d8084deab30c2a37c45e8d47f49f2f7965183cb6990a98943ef94940681de3';

/** One creation as public networks ran it through the deployer. */
export interface PublicCreation {
  name: string;
  /** The public address: CREATE2(CREATE2_DEPLOYER, salt, initCode). */
  address: Address;
  salt: Hex;
  /** The creation code, constructor arguments appended. */
  initCode: Hex;
}

/** A factory's creation code followed by its constructor argument, the EntryPoint (ABI-encoded address). */
function factoryInitCode(initCode: Hex, entryPoint: Address): Hex {
  return concat([initCode, encodeAbiParameters([{ type: 'address' }], [entryPoint])]);
}

/** The four creations genesis replays, in their order (each factory after its EntryPoint). */
export const PUBLIC_CREATIONS: readonly PublicCreation[] = [
  { name: 'EntryPoint v0.6', address: ENTRY_POINT_V06, salt: CREATE2_SALT_ZERO, initCode: entryPointV06.initCode },
  { name: 'SimpleAccountFactory v0.6', address: SIMPLE_ACCOUNT_FACTORY_V06, salt: CREATE2_SALT_ZERO, initCode: factoryInitCode(simpleAccountFactoryV06.initCode, ENTRY_POINT_V06) },
  { name: 'EntryPoint v0.7', address: ENTRY_POINT_V07, salt: CREATE2_SALT_V07, initCode: entryPointV07.initCode },
  { name: 'SimpleAccountFactory v0.7', address: SIMPLE_ACCOUNT_FACTORY_V07, salt: CREATE2_SALT_ZERO, initCode: factoryInitCode(simpleAccountFactoryV07.initCode, ENTRY_POINT_V07) },
];

/** Where `c` lands when the deployer creates it: CREATE2(deployer, salt, initCode). */
export function create2Address(c: Pick<PublicCreation, 'salt' | 'initCode'>): Address {
  return getContractAddress({ opcode: 'CREATE2', from: CREATE2_DEPLOYER, salt: c.salt, bytecode: c.initCode });
}

const op = { PUSH1: 0x60, PUSH2: 0x61, PUSH3: 0x62, PUSH20: 0x73, PUSH32: 0x7f, CODECOPY: 0x39, CREATE2: 0xf5, EQ: 0x14, ISZERO: 0x15, JUMPI: 0x57, JUMPDEST: 0x5b, RETURN: 0xf3, REVERT: 0xfd, DUP1: 0x80 } as const;

function push(opcode: number, width: number, value: bigint | number | Hex): Buffer {
  const bytes = typeof value === 'string' ? Buffer.from(value.slice(2), 'hex') : Buffer.from(BigInt(value).toString(16).padStart(width * 2, '0'), 'hex');
  if (bytes.length !== width) throw new Error(`push of ${bytes.length} bytes into ${width}`);
  return Buffer.concat([Buffer.from([opcode]), bytes]);
}

/**
 * The deployer's genesis init code: for each creation, CODECOPY its creation code to memory 0,
 * CREATE2 it with its salt (no value), and revert unless the result is its public address; then
 * return CREATE2_DEPLOYER_CODE. The creation codes and the runtime code follow the program.
 */
export function deployerGenesisInitCode(creations: readonly PublicCreation[] = PUBLIC_CREATIONS): Buffer {
  const PER_CREATION = 4 + 4 + 2 + 1 + 33 + 4 + 2 + 2 + 1 + 21 + 1 + 1 + 3 + 1;
  const TAIL = 2 + 4 + 2 + 1 + 2 + 2 + 1;
  const fail = PER_CREATION * creations.length + TAIL;
  const runtime = Buffer.from(CREATE2_DEPLOYER_CODE.slice(2), 'hex');
  const program: Buffer[] = [];
  let offset = fail + 5; // the data start after the program's fail branch (JUMPDEST PUSH1 0 DUP1 REVERT)
  for (const c of creations) {
    const length = (c.initCode.length - 2) / 2;
    program.push(
      push(op.PUSH3, 3, length), push(op.PUSH3, 3, offset), push(op.PUSH1, 1, 0), Buffer.from([op.CODECOPY]),
      push(op.PUSH32, 32, c.salt), push(op.PUSH3, 3, length), push(op.PUSH1, 1, 0), push(op.PUSH1, 1, 0), Buffer.from([op.CREATE2]),
      push(op.PUSH20, 20, c.address.toLowerCase() as Hex), Buffer.from([op.EQ, op.ISZERO]), push(op.PUSH2, 2, fail), Buffer.from([op.JUMPI]),
    );
    offset += length;
  }
  program.push(
    push(op.PUSH1, 1, runtime.length), push(op.PUSH3, 3, offset), push(op.PUSH1, 1, 0), Buffer.from([op.CODECOPY]),
    push(op.PUSH1, 1, runtime.length), push(op.PUSH1, 1, 0), Buffer.from([op.RETURN]),
    Buffer.from([op.JUMPDEST]), push(op.PUSH1, 1, 0), Buffer.from([op.DUP1, op.REVERT]),
  );
  const code = Buffer.concat(program);
  if (code.length !== fail + 5) throw new Error(`the deployer's genesis program is ${code.length} bytes, expected ${fail + 5}`);
  return Buffer.concat([code, ...creations.map((c) => Buffer.from(c.initCode.slice(2), 'hex')), runtime]);
}

/** The genesis allocation of the ERC-4337 contracts: the deployer, whose init code creates the others. */
export function accountAbstractionAccounts(): GenesisAccount[] {
  return [{ address: parseAddress(CREATE2_DEPLOYER), balance: 0n, initCode: deployerGenesisInitCode() }];
}
