// Genesis of each network, as the spec handed to core.Chain.open. Genesis is a pure function of the
// network and its configuration (or of the genesis file), so every start of a data directory with
// the same settings sees the same genesis hash.
//
// devnet: chain id from params, the first 10 accounts of the standard test mnemonic funded as
// Hardhat and anvil fund them, the faucet at index 100 of it and the bundler at 101, dev account 0 as genesis validator,
// Multicall3 at its canonical address, and the ERC-4337 EntryPoints v0.6 and v0.7 with their
// SimpleAccountFactories at their canonical addresses, created through the deterministic CREATE2
// deployer as on public networks (account-abstraction.ts).
//
// testnet: no account of that mnemonic, because their keys are public. The built-in genesis is a
// pure function of the configuration: the validator address (--validator-address, required) is the
// genesis validator and is funded with params.chain.testnetValidatorBalance; the faucet address
// (--faucet-address, or the address of the operator's faucet key) gets params.faucet.genesisBalance;
// without either faucet setting there is no faucet account. Multicall3 and the ERC-4337 contracts are
// placed as on the devnet. Every node of a testnet passes the same
// validator and faucet addresses and so builds the same genesis.
//
// mainnet: no dev accounts either. Its genesis is a JSON file given with --genesis <file>
// (SVC_GENESIS) that holds the launch allocation; the node refuses to start mainnet without one.
// A file given on testnet or mainnet must not allocate to, or list as validator, a public account of
// the dev mnemonic. The file's format (quantities are JSON numbers, decimal strings or 0x-hex):
//   {
//     "chainId": 9001,                          required, must equal the network's chain id
//     "timestamp": 1767225600,                  required, unix seconds
//     "gasLimit": 300000000,                    optional, default params.chain.blockGasLimit
//     "baseFeePerGas": "0x3b9aca00",            optional, default params.chain.genesisBaseFeePerGas
//     "coinbase": "0x00…00",                    optional, default the zero address
//     "extraData": "0x…",                       optional, at most 32 bytes
//     "alloc": { "0x<address>": { "balance": "…", "nonce": "…", "code": "0x…",
//                                 "storage": { "0x<slot>": "0x<value>" } } },
//                                 (or "initCode": "0x…" instead of "code": creation code that
//                                 genesis runs at that address, its return the account's code: how
//                                 `svc-node testnet init` places the ERC-4337 contracts)
//     "validators": [ { "operator": "0x…", "moniker": "…", "selfStake": "…",   optional: the genesis
//                       "commissionBps": 500, "maxCommissionBps": 2000,          validator set; their
//                       "maxChangeBpsPerDay": 100,                               self stakes are minted
//                       "consensusKey": "0x<32-byte Ed25519 key>" } ],           to the staking module;
//                                                                                consensusKey: CometBFT networks
//     "staking": { "signedBlocksWindow": 100,     optional: the downtime window (blocks) and the share of it
//                  "minSignedPerWindowBps": 5000 } a validator must sign; governance may change both later
//   }
// Multicall3 is part of every svc network (dev tools expect it at its canonical address), so the
// node adds it to a file's allocation unless the file allocates that address itself.
import { readFileSync } from 'node:fs';
import type { GenesisAccount, GenesisSpec } from '../native/index.js';
import type { NodeConfig } from '../config.js';
import { resolveCoinbase } from './coinbase.js';
import type { BridgeConfig } from '../modules/bridge/types.js';
import { parseBridgeGenesis } from '../modules/bridge/genesis.js';
import { genesisStaking, genesisValidators, type GenesisStakingParams, type GenesisValidator } from '../modules/staking/genesis.js';
import { CHAIN_ID, chain as chainParams, faucet, system, type NetworkName } from '../params.js';
import { checksumAddress, parseAddress } from './address.js';
import { bundlerAccount, devAccounts, faucetAccount, publicKeyRefusal } from './dev-accounts.js';
import { FaucetKeyError } from './faucet-key.js';
import { MULTICALL3_INIT_CODE } from './multicall3.js';
import { accountAbstractionAccounts } from './account-abstraction.js';
import { SvcError, type SvcErrorOptions } from '../errors.js';

export { devAccounts, faucetAccount, type DevAccount } from './dev-accounts.js';
export type { GenesisStakingParams, GenesisValidator } from '../modules/staking/genesis.js';

/** The configuration a network's genesis is built from. */
export type GenesisConfig = Pick<NodeConfig, 'network' | 'chainId' | 'genesisFile' | 'validatorAddress' | 'faucetKey' | 'faucetAddress' | 'devnetBridge'>;

/** Raised for a genesis file that cannot be read or does not follow the format above. */
export class GenesisFileError extends SvcError {
  override readonly name = 'GenesisFileError';
  override readonly code = 'GENESIS_FILE';
  constructor(readonly file: string, reason: string, options?: SvcErrorOptions) {
    super(`genesis file ${file}: ${reason}`, options);
  }
}

/** Raised when a network cannot start from the genesis it was given (e.g. mainnet without a file). */
export class GenesisUnavailableError extends SvcError {
  override readonly name = 'GenesisUnavailableError';
  override readonly code = 'GENESIS_UNAVAILABLE';
}

function multicall3Account(): GenesisAccount {
  return {
    address: parseAddress(chainParams.multicall3Address),
    balance: 0n,
    initCode: Buffer.from(MULTICALL3_INIT_CODE.slice(2), 'hex'),
  };
}

/** The devnet's genesis validator: dev account 0, the solo driver's default coinbase. */
export function devGenesisValidators(): GenesisValidator[] {
  return [{ operator: devAccounts()[0]!.addressBytes, ...system.devGenesisValidator }];
}

/** The staking module, treasury, compute and governance module accounts: their code refuses EVM calls; the module holds the genesis self stakes. */
function systemAccounts(validators: readonly GenesisValidator[]): GenesisAccount[] {
  const staked = validators.reduce((sum, v) => sum + v.selfStake, 0n);
  const code = Buffer.from(system.moduleCode);
  return [
    { address: parseAddress(system.stakingAddress), balance: staked, code },
    { address: parseAddress(system.treasuryAddress), balance: 0n, code },
    { address: parseAddress(system.computeAddress), balance: 0n, code },
    { address: parseAddress(system.governanceAddress), balance: 0n, code },
    { address: parseAddress(system.bridgeAddress), balance: 0n, code },
    { address: parseAddress(system.rentAddress), balance: 0n, code },
  ];
}

/** Built-in genesis of the devnet: dev accounts, the dev faucet and the dev bundler funded, Multicall3 and the ERC-4337 contracts deployed. */
export function devGenesis(network: 'devnet' = 'devnet'): GenesisSpec {
  const alloc: GenesisAccount[] = devAccounts().map((a) => ({ address: a.addressBytes, balance: a.balance }));
  const faucetAlloc = faucetAccount();
  const bundlerAlloc = bundlerAccount();
  alloc.push(
    multicall3Account(),
    ...accountAbstractionAccounts(),
    ...systemAccounts(devGenesisValidators()),
    { address: faucetAlloc.addressBytes, balance: faucetAlloc.balance },
    { address: bundlerAlloc.addressBytes, balance: bundlerAlloc.balance },
  );
  return builtInSpec(network, alloc);
}

/**
 * Built-in genesis of the testnet: `validator` registered and funded, the faucet address (when the
 * configuration names one) funded, Multicall3 and the ERC-4337 contracts deployed; no public key holds anything.
 */
export function testnetGenesis(validator: Buffer, faucetAddress: Buffer | undefined): NetworkGenesis {
  if (faucetAddress?.equals(validator)) {
    throw new GenesisUnavailableError(
      `the faucet address ${checksumAddress(faucetAddress)} is also --validator-address: give the testnet faucet an account of its own`,
    );
  }
  const validators: GenesisValidator[] = [{ operator: validator, ...system.devGenesisValidator }];
  const alloc: GenesisAccount[] = [
    multicall3Account(),
    ...accountAbstractionAccounts(),
    ...systemAccounts(validators),
    { address: validator, balance: chainParams.testnetValidatorBalance },
  ];
  if (faucetAddress) alloc.push({ address: faucetAddress, balance: faucet.genesisBalance });
  return { spec: builtInSpec('testnet', alloc), validators };
}

function builtInSpec(network: 'devnet' | 'testnet', alloc: GenesisAccount[]): GenesisSpec {
  return {
    chainId: CHAIN_ID[network],
    timestamp: chainParams.genesisTimestamp[network],
    gasLimit: chainParams.blockGasLimit,
    baseFeePerGas: chainParams.genesisBaseFeePerGas,
    coinbase: Buffer.alloc(20),
    extraData: Buffer.from(`svc ${network}`, 'utf8'),
    alloc: sortAlloc(alloc),
  };
}

/**
 * The testnet faucet address its genesis funds: --faucet-address, else the operator key's address,
 * else none. Refuses faucet settings on other networks, a key that does not match --faucet-address,
 * and a public dev account.
 */
export function testnetFaucetAddress(config: Pick<NodeConfig, 'network' | 'faucetKey' | 'faucetAddress'>): Buffer | undefined {
  const { network, faucetKey } = config;
  if (network !== 'testnet') {
    if (faucetKey || config.faucetAddress !== undefined) {
      throw new FaucetKeyError(
        network === 'mainnet'
          ? 'mainnet has no faucet: remove --faucet-key-file, SVC_FAUCET_PRIVATE_KEY and --faucet-address'
          : "--faucet-key-file, SVC_FAUCET_PRIVATE_KEY and --faucet-address are for testnet: the devnet's faucet is its dev account (index 100 of the dev mnemonic)",
      );
    }
    return undefined;
  }
  let address: Buffer | undefined;
  if (config.faucetAddress !== undefined) {
    try {
      address = parseAddress(config.faucetAddress);
    } catch (err) {
      throw new FaucetKeyError(`--faucet-address: ${(err as Error).message}`);
    }
  }
  if (faucetKey) {
    if (address && !address.equals(faucetKey.addressBytes)) {
      throw new FaucetKeyError(
        `the faucet key's address ${faucetKey.address} is not --faucet-address ${checksumAddress(address)}: every node of a testnet must fund the same faucet address`,
      );
    }
    address = faucetKey.addressBytes;
  }
  const refusal = address && publicKeyRefusal(faucetKey ? "the faucet key's address" : '--faucet-address', address, network);
  if (refusal) throw new FaucetKeyError(refusal);
  return address;
}

/** Read a genesis file (format at the top of this file) for a network with the given chain id. */
export function loadGenesisFile(file: string, expectedChainId: number): GenesisSpec {
  return parseGenesisJson(readGenesisJson(file), expectedChainId, file);
}

function readGenesisJson(file: string): unknown {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    throw new GenesisFileError(file, `cannot read it (${(err as NodeJS.ErrnoException).code ?? (err as Error).message})`, { cause: err });
  }
  try {
    return JSON.parse(text) as unknown;
  } catch (err) {
    throw new GenesisFileError(file, `not valid JSON (${(err as Error).message})`);
  }
}

/** A network's genesis: the chain's (state and header) and the staking module's validators. */
export interface NetworkGenesis {
  spec: GenesisSpec;
  validators: GenesisValidator[];
  /** The external chain the bridge module connects to (docs/bridge.md); none: the bridge is inactive. */
  bridge?: GenesisBridge;
  /** Staking rules the genesis sets instead of params.staking's (the liveness window and threshold); governance may change them later. */
  staking?: GenesisStakingParams;
}

/** A genesis's "bridge": the external chain, SvcBridge's address there (lowercase), confirmations, its deployment block. */
export type GenesisBridge = BridgeConfig;

/** Validate a parsed genesis document; `source` names it in error messages. */
export function parseGenesisJson(json: unknown, expectedChainId: number, source: string): GenesisSpec {
  return parseNetworkGenesis(json, expectedChainId, source).spec;
}

/** Validate a parsed genesis document with its validators; `source` names it in error messages. */
export function parseNetworkGenesis(json: unknown, expectedChainId: number, source: string): NetworkGenesis {
  const fail = (reason: string): never => {
    throw new GenesisFileError(source, reason);
  };
  if (!isObject(json)) return fail('expected a JSON object');
  const known = new Set(['chainId', 'timestamp', 'gasLimit', 'baseFeePerGas', 'coinbase', 'extraData', 'alloc', 'validators', 'bridge', 'staking']);
  for (const key of Object.keys(json)) if (!known.has(key)) fail(`unknown field "${key}"`);

  const chainId = quantity(json.chainId, 'chainId', fail, true);
  if (chainId !== BigInt(expectedChainId)) fail(`chainId is ${chainId}, this network's chain id is ${expectedChainId}`);
  const timestamp = quantity(json.timestamp, 'timestamp', fail, true);
  if (timestamp > BigInt(Number.MAX_SAFE_INTEGER)) fail('timestamp is out of range');
  const gasLimit = json.gasLimit === undefined ? BigInt(chainParams.blockGasLimit) : quantity(json.gasLimit, 'gasLimit', fail, true);
  if (gasLimit === 0n || gasLimit > BigInt(Number.MAX_SAFE_INTEGER)) fail('gasLimit is out of range');
  const baseFeePerGas =
    json.baseFeePerGas === undefined ? chainParams.genesisBaseFeePerGas : quantity(json.baseFeePerGas, 'baseFeePerGas', fail, true);
  const coinbase = json.coinbase === undefined ? Buffer.alloc(20) : address(json.coinbase, 'coinbase', fail);
  const extraData = json.extraData === undefined ? Buffer.alloc(0) : hexBytes(json.extraData, 'extraData', fail);
  if (extraData.length > 32) fail(`extraData is ${extraData.length} bytes, at most 32 are allowed`);

  if (!isObject(json.alloc)) return fail('"alloc" must be an object keyed by address');
  const alloc: GenesisAccount[] = [];
  const seen = new Set<string>();
  for (const [key, entry] of Object.entries(json.alloc)) {
    const addr = address(key.startsWith('0x') ? key : `0x${key}`, `alloc key ${key}`, fail);
    const id = addr.toString('hex');
    if (seen.has(id)) fail(`alloc lists ${key} twice`);
    seen.add(id);
    alloc.push(allocEntry(addr, entry, `alloc[${key}]`, fail));
  }
  if (!seen.has(parseAddress(chainParams.multicall3Address).toString('hex'))) alloc.push(multicall3Account());
  for (const reserved of [system.stakingAddress, system.treasuryAddress, system.computeAddress, system.governanceAddress, system.bridgeAddress, system.rentAddress]) {
    if (seen.has(reserved.slice(2))) fail(`alloc must not hold ${reserved}: it is a system module's address`);
  }
  const read = { fail, address: (v: unknown, field: string) => address(v, field, fail), quantity: (v: unknown, field: string) => quantity(v, field, fail, true) };
  const validators = json.validators === undefined ? [] : genesisValidators(json.validators, read);
  alloc.push(...systemAccounts(validators));
  const bridge = json.bridge === undefined ? undefined : parseBridgeGenesis(json.bridge, Number(chainId), read);
  if (bridge && validators.length === 0) fail('"bridge" needs "validators": the bridged set is the genesis validators');
  const staking = json.staking === undefined ? undefined : genesisStaking(json.staking, read);

  return {
    spec: {
      chainId: Number(chainId),
      timestamp: Number(timestamp),
      gasLimit: Number(gasLimit),
      baseFeePerGas,
      coinbase,
      extraData,
      alloc: sortAlloc(alloc),
    },
    validators,
    ...(bridge ? { bridge } : {}),
    ...(staking ? { staking } : {}),
  };
}


/** The genesis a node configuration starts from: its file when given, else the network's built-in one. */
export function resolveGenesis(config: GenesisConfig): GenesisSpec {
  return resolveNetworkGenesis(config).spec;
}

/** The genesis with its validators: the file's when given, else the network's built-in one. */
export function resolveNetworkGenesis(config: GenesisConfig): NetworkGenesis {
  const faucetAddress = testnetFaucetAddress(config);
  if (config.genesisFile) {
    const genesis = parseNetworkGenesis(readGenesisJson(config.genesisFile), config.chainId, config.genesisFile);
    if (config.network !== 'devnet') refusePublicKeys(genesis, config.network, config.genesisFile);
    return genesis;
  }
  if (config.network === 'mainnet') {
    throw new GenesisUnavailableError(
      'mainnet has no built-in genesis: pass its genesis file with --genesis <file> (or SVC_GENESIS)',
    );
  }
  if (config.network === 'testnet') return testnetGenesis(resolveCoinbase(config), faucetAddress);
  return { spec: devGenesis(config.network), validators: devGenesisValidators(), ...(config.devnetBridge ? { bridge: config.devnetBridge } : {}) };
}

/** A testnet or mainnet genesis file may not fund, or register as validator, an account whose key is public. */
function refusePublicKeys(genesis: NetworkGenesis, network: NetworkName, file: string): void {
  for (const account of genesis.spec.alloc) {
    const refusal = publicKeyRefusal('alloc holds', account.address, network);
    if (refusal) throw new GenesisFileError(file, refusal);
  }
  for (const validator of genesis.validators) {
    const refusal = publicKeyRefusal('validators lists', validator.operator, network);
    if (refusal) throw new GenesisFileError(file, refusal);
  }
}

/** Whether the network's funded dev accounts may be shown: the built-in devnet only. */
export function hasDevAccounts(network: NetworkName, genesisFile: string | undefined): boolean {
  return network === 'devnet' && !genesisFile;
}

type Fail = (reason: string) => never;

function allocEntry(addr: Buffer, entry: unknown, where: string, fail: Fail): GenesisAccount {
  if (!isObject(entry)) return fail(`${where} must be an object`);
  for (const key of Object.keys(entry)) {
    if (!['balance', 'nonce', 'code', 'storage', 'initCode'].includes(key)) fail(`${where}: unknown field "${key}"`);
  }
  if (entry.code !== undefined && entry.initCode !== undefined) fail(`${where}: give "code" or "initCode", not both`);
  const account: GenesisAccount = { address: addr, balance: quantity(entry.balance ?? 0, `${where}.balance`, fail, false) };
  if (entry.nonce !== undefined) account.nonce = quantity(entry.nonce, `${where}.nonce`, fail, false);
  if (entry.code !== undefined) account.code = hexBytes(entry.code, `${where}.code`, fail);
  if (entry.initCode !== undefined) account.initCode = hexBytes(entry.initCode, `${where}.initCode`, fail);
  if (entry.storage !== undefined) {
    if (!isObject(entry.storage)) fail(`${where}.storage must be an object of slot -> value`);
    account.storage = Object.entries(entry.storage as Record<string, unknown>)
      .map(([slot, value]) => ({
        slot: word(slot, `${where}.storage key ${slot}`, fail),
        value: word(value, `${where}.storage[${slot}]`, fail),
      }))
      .sort((a, b) => Buffer.compare(a.slot, b.slot));
  }
  return account;
}

function sortAlloc(alloc: GenesisAccount[]): GenesisAccount[] {
  return alloc.sort((a, b) => Buffer.compare(a.address, b.address));
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function quantity(v: unknown, field: string, fail: Fail, required: boolean): bigint {
  if (v === undefined) return required ? fail(`"${field}" is required`) : 0n;
  if (typeof v === 'number') {
    if (!Number.isSafeInteger(v) || v < 0) fail(`"${field}" must be a non-negative integer`);
    return BigInt(v);
  }
  if (typeof v === 'string' && (/^0x[0-9a-fA-F]+$/.test(v) || /^[0-9]+$/.test(v))) {
    const n = BigInt(v);
    if (n >= 1n << 256n) fail(`"${field}" does not fit in 256 bits`);
    return n;
  }
  return fail(`"${field}" must be a number, a decimal string or a 0x-hex string`);
}

function hexBytes(v: unknown, field: string, fail: Fail): Buffer {
  if (typeof v !== 'string' || !/^0x([0-9a-fA-F]{2})*$/.test(v)) return fail(`"${field}" must be 0x-prefixed hex bytes`);
  return Buffer.from(v.slice(2), 'hex');
}

function word(v: unknown, field: string, fail: Fail): Buffer {
  if (typeof v !== 'string' || !/^0x[0-9a-fA-F]{1,64}$/.test(v)) return fail(`"${field}" must be 0x-hex of at most 32 bytes`);
  return Buffer.from(v.slice(2).padStart(64, '0'), 'hex');
}

function address(v: unknown, field: string, fail: Fail): Buffer {
  if (typeof v !== 'string') return fail(`"${field}" must be a 0x address`);
  try {
    return parseAddress(v);
  } catch (err) {
    return fail(`${field}: ${(err as Error).message}`);
  }
}
