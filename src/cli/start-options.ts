// Flags of `svc-node start`, each also read from SVC_<FLAG>; resolved into a NodeConfig.
// Precedence: flag, then environment variable, then the network's default.
import path from 'node:path';
import { InvalidArgumentError, Option, type Command } from 'commander';
import type { NodeConfig } from '../config.js';
import { parseAddress } from '../chain/address.js';
import { BRIDGE_KEY_ENV, BUNDLER_KEY_ENV, FAUCET_KEY_ENV, FaucetKey, FaucetKeyError, readFaucetKeyFile } from '../chain/faucet-key.js';
import { publicKeyRefusal } from '../chain/dev-accounts.js';
import { LOG_LEVELS, type LogLevel } from '../log.js';
import { TrustedProxies, TrustedProxyError } from '../net/client-ip.js';
import { bridge as bridgeParams, CHAIN_ID, chain as chainParams, http as httpParams, proofPrecheck, rpc as rpcParams, type ComputeModeSetting, type NetworkName } from '../params.js';
import { SvcError } from '../errors.js';

const NETWORKS: readonly NetworkName[] = ['devnet', 'testnet', 'mainnet'];
const MAX_PORT = 65_535;
/** The longest delay a Node.js timer takes. */
const MAX_TIMER_MS = 2_147_483_647;
/** Environment variable of the loopback exemption, read by hand because commander's boolean env handling only tests presence. */
export const LOOPBACK_EXEMPT_ENV = 'SVC_RATE_LIMIT_LOOPBACK_EXEMPT';

/** Raised for a flag or environment value that cannot be used; the CLI exits with code 2. */
export class UsageError extends SvcError {
  override readonly name = 'UsageError';
  override readonly code = 'USAGE';
}

/** What commander hands the start action. */
export interface StartFlags {
  network: NetworkName;
  dataDir?: string;
  genesis?: string;
  rpcHost: string;
  rpcPort: number;
  wsPort: number;
  explorerPort: number;
  blockTimeMs: number;
  logLevel: LogLevel;
  consensus?: 'solo' | 'cometbft';
  cometbftHome?: string;
  abciAddr?: string;
  snapshotInterval?: number;
  snapshotKeep?: number;
  stateSyncRpc?: string;
  stateSyncTrustHeight?: number;
  stateSyncTrustHash?: string;
  rpcRateLimit: number;
  rateLimitLoopbackExempt?: boolean;
  rpcGasCap?: number;
  rpcEvmTimeoutMs?: number;
  rpcMaxResponseBytes?: number;
  httpReadTimeoutMs: number;
  httpWriteTimeoutMs: number;
  httpIdleTimeoutMs: number;
  maxConnectionsPerIp: number;
  trustProxy?: string;
  validatorAddress?: string;
  faucetKeyFile?: string;
  bundlerKeyFile?: string;
  bridgeRpc?: string;
  bridgeContract?: string;
  bridgeConfirmations?: number;
  bridgeFromBlock?: number;
  bridgeKeyFile?: string;
  bridgeRelay?: boolean;
  faucetAddress?: string;
  computeMode: ComputeModeSetting;
  inferenceBackend: 'cpu' | 'cuda' | 'metal' | 'auto';
  modelDir: string;
  models?: string;
  powThreads: number;
  /** Basis points (parsed by proofPrecheckRate). */
  proofPrecheckRate: number;
}

/** An argParser accepting a decimal integer within [min, max]. */
export function integerIn(min: number, max: number): (value: string) => number {
  return (value: string) => {
    if (!/^\d+$/.test(value.trim())) throw new InvalidArgumentError(`expected an integer from ${min} to ${max}.`);
    const n = Number(value.trim());
    if (!Number.isSafeInteger(n) || n < min || n > max) {
      throw new InvalidArgumentError(`expected an integer from ${min} to ${max}.`);
    }
    return n;
  };
}

/** --proof-precheck-rate: a fraction from 0 to 1 (0.25) or a percentage (25%), to basis points; finer than 1 bps is refused. */
export function proofPrecheckRate(value: string): number {
  const v = value.trim();
  const m = /^(\d+(?:\.\d+)?)(%?)$/.exec(v);
  const fail = (): never => {
    throw new InvalidArgumentError('expected a fraction from 0 to 1 (e.g. 0.25) or a percentage (e.g. 25%), in steps of 0.0001 (1 basis point).');
  };
  if (!m) return fail();
  const [whole, frac = ''] = m[1]!.split('.');
  // Decimal digits to basis points without floating point: a fraction has 4 places of bps, a percentage 2.
  const places = m[2] === '%' ? 2 : 4;
  if (frac.length > places && /[1-9]/.test(frac.slice(places))) return fail();
  const bps = Number(whole) * 10 ** places + Number((frac.slice(0, places) || '0').padEnd(places, '0'));
  if (!Number.isSafeInteger(bps) || bps > 10_000) return fail();
  return bps;
}

function nonEmpty(value: string): string {
  if (value.trim() === '') throw new InvalidArgumentError('must not be empty.');
  return value;
}

/** Declare the start flags on a command. */
export function addStartOptions(cmd: Command): Command {
  const port = integerIn(0, MAX_PORT);
  return cmd
    .addOption(new Option('--network <name>', 'network to run').choices(NETWORKS).default('devnet').env('SVC_NETWORK'))
    .addOption(
      new Option('--data-dir <dir>', 'database directory (default: ./.svc-data/<network>)').argParser(nonEmpty).env('SVC_DATA_DIR'),
    )
    .addOption(
      new Option('--genesis <file>', 'genesis file (JSON); required on mainnet, replaces the built-in genesis elsewhere')
        .argParser(nonEmpty)
        .env('SVC_GENESIS'),
    )
    .addOption(new Option('--rpc-host <host>', 'JSON-RPC listen address').argParser(nonEmpty).default(rpcParams.defaultHost).env('SVC_RPC_HOST'))
    .addOption(
      new Option('--rpc-port <port>', 'JSON-RPC port (0 = any free port)').argParser(port).default(rpcParams.defaultPort).env('SVC_RPC_PORT'),
    )
    .addOption(new Option('--ws-port <port>', 'WebSocket port').argParser(port).default(rpcParams.defaultWsPort).env('SVC_WS_PORT'))
    .addOption(
      new Option('--explorer-port <port>', 'explorer API port').argParser(port).default(rpcParams.defaultExplorerPort).env('SVC_EXPLORER_PORT'),
    )
    .addOption(
      new Option('--block-time-ms <ms>', 'solo block time in milliseconds')
        .argParser(integerIn(1, chainParams.maxBlockTimeMs))
        .default(chainParams.defaultBlockTimeMs)
        .env('SVC_BLOCK_TIME_MS'),
    )
    .addOption(
      new Option('--consensus <engine>', 'solo: this node seals every block; cometbft: a validator of a CometBFT network (ABCI 2.0)')
        .choices(['solo', 'cometbft'])
        .default('solo')
        .env('SVC_CONSENSUS'),
    )
    .addOption(new Option('--cometbft-home <dir>', "--consensus cometbft: CometBFT's home (config/, data/); default <data-dir>/cometbft").argParser(nonEmpty).env('SVC_COMETBFT_HOME'))
    .addOption(
      new Option('--abci-addr <addr>', '--consensus cometbft: serve ABCI on tcp://host:port or unix://path for a CometBFT run separately, instead of running it')
        .argParser(nonEmpty)
        .env('SVC_ABCI_ADDR'),
    )
    .addOption(
      new Option('--snapshot-interval <blocks>', '--consensus cometbft: take a state sync snapshot every this many blocks (0: none)')
        .argParser(integerIn(0, Number.MAX_SAFE_INTEGER))
        .default(1000)
        .env('SVC_SNAPSHOT_INTERVAL'),
    )
    .addOption(new Option('--snapshot-keep <n>', '--consensus cometbft: state sync snapshots kept').argParser(integerIn(1, 1000)).default(2).env('SVC_SNAPSHOT_KEEP'))
    .addOption(
      new Option('--state-sync-rpc <urls>', "--consensus cometbft: join by state sync from these CometBFT RPCs (comma-separated; the light client's witnesses) when the node is empty")
        .argParser(nonEmpty)
        .env('SVC_STATE_SYNC_RPC'),
    )
    .addOption(
      new Option('--state-sync-trust-height <height>', '--state-sync-rpc: the height of a header you trust (with --state-sync-trust-hash); default: taken from the first RPC, which you then trust')
        .argParser(integerIn(1, Number.MAX_SAFE_INTEGER))
        .env('SVC_STATE_SYNC_TRUST_HEIGHT'),
    )
    .addOption(new Option('--state-sync-trust-hash <hash>', '--state-sync-rpc: the hash (hex) of the header at --state-sync-trust-height').argParser(nonEmpty).env('SVC_STATE_SYNC_TRUST_HASH'))
    .addOption(new Option('--log-level <level>', 'log level').choices(LOG_LEVELS).default('info').env('SVC_LOG_LEVEL'))
    .addOption(
      new Option('--rpc-rate-limit <n>', 'JSON-RPC requests per second per IP (0 = off)')
        .argParser(integerIn(0, Number.MAX_SAFE_INTEGER))
        .default(rpcParams.rateLimitPerSecond)
        .env('SVC_RPC_RATE_LIMIT'),
    )
    .addOption(
      new Option('--rpc-gas-cap <gas>', 'gas cap of eth_call, eth_estimateGas, eth_createAccessList, debug_traceCall and of a whole eth_simulateV1 (0 = none)')
        .argParser(integerIn(0, Number.MAX_SAFE_INTEGER))
        .default(rpcParams.gasCap)
        .env('SVC_RPC_GAS_CAP'),
    )
    .addOption(
      new Option('--rpc-evm-timeout-ms <ms>', 'how long those may run before they are stopped (0 = no limit)')
        .argParser(integerIn(0, MAX_TIMER_MS))
        .default(rpcParams.evmTimeoutMs)
        .env('SVC_RPC_EVM_TIMEOUT_MS'),
    )
    .addOption(
      new Option('--rpc-max-response-bytes <n>', 'most bytes of one JSON-RPC reply; larger ones get -32000 "response too large" (0 = no limit)')
        .argParser(integerIn(0, Number.MAX_SAFE_INTEGER))
        .default(rpcParams.maxResponseBytes)
        .env('SVC_RPC_MAX_RESPONSE_BYTES'),
    )
    .addOption(
      new Option(
        '--rate-limit-loopback-exempt',
        `exempt 127.0.0.1/::1 from the rate limit (default: on for devnet, off otherwise) (env: ${LOOPBACK_EXEMPT_ENV}=true|false)`,
      ),
    )
    .addOption(new Option('--no-rate-limit-loopback-exempt', 'rate-limit loopback clients too'))
    .addOption(
      new Option('--http-read-timeout-ms <ms>', "a request's headers and body must arrive within this, on every port")
        .argParser(integerIn(1, MAX_TIMER_MS))
        .default(httpParams.readTimeoutMs)
        .env('SVC_HTTP_READ_TIMEOUT_MS'),
    )
    .addOption(
      new Option('--http-write-timeout-ms <ms>', 'a connection whose client takes none of the data waiting for it for this long is closed')
        .argParser(integerIn(1, MAX_TIMER_MS))
        .default(httpParams.writeTimeoutMs)
        .env('SVC_HTTP_WRITE_TIMEOUT_MS'),
    )
    .addOption(
      new Option('--http-idle-timeout-ms <ms>', 'idle kept-alive HTTP connections are closed after this')
        .argParser(integerIn(1, MAX_TIMER_MS))
        .default(httpParams.idleTimeoutMs)
        .env('SVC_HTTP_IDLE_TIMEOUT_MS'),
    )
    .addOption(
      new Option('--max-connections-per-ip <n>', 'connections one client address may hold open on each port (0 = no cap; loopback follows the loopback exemption)')
        .argParser(integerIn(0, 1_000_000))
        .default(httpParams.maxConnectionsPerIp)
        .env('SVC_MAX_CONNECTIONS_PER_IP'),
    )
    .addOption(
      new Option(
        '--trust-proxy <addresses>',
        'comma-separated reverse-proxy addresses or CIDR ranges whose X-Forwarded-For/-Proto name the client on the explorer and WebSocket ports (default: none)',
      )
        .argParser(nonEmpty)
        .env('SVC_TRUST_PROXY'),
    )
    .addOption(
      new Option(
        '--validator-address <address>',
        'coinbase of produced blocks and the built-in testnet\'s genesis validator (default on devnet: dev account 0; required on testnet and mainnet)',
      )
        .argParser(nonEmpty)
        .env('SVC_VALIDATOR_ADDRESS'),
    )
    .addOption(
      new Option(
        '--faucet-key-file <file>',
        `testnet: file holding the faucet's private key (hex); or the key itself in ${FAUCET_KEY_ENV}. Without a key a testnet node serves no faucet`,
      )
        .argParser(nonEmpty)
        .env('SVC_FAUCET_KEY_FILE'),
    )
    .addOption(
      new Option(
        '--bundler-key-file <file>',
        `file holding the private key (hex) the ERC-4337 bundler signs handleOps bundles with; or the key itself in ${BUNDLER_KEY_ENV}. devnet defaults to its dev bundler account; without a key a testnet or mainnet node accepts no user operations`,
      )
        .argParser(nonEmpty)
        .env('SVC_BUNDLER_KEY_FILE'),
    )
    .addOption(
      new Option('--bridge-rpc <url>', "the bridge's external chain: its JSON-RPC URL, watched for the contract's deposits and releases (a validator attests them)")
        .argParser(nonEmpty)
        .env('SVC_BRIDGE_RPC'),
    )
    .addOption(
      new Option(
        '--bridge-contract <address>',
        "SvcBridge's address on the external chain: devnet puts it in its built-in genesis (with the chain id --bridge-rpc answers); elsewhere it must be the genesis's",
      )
        .argParser(nonEmpty)
        .env('SVC_BRIDGE_CONTRACT'),
    )
    .addOption(
      new Option('--bridge-confirmations <n>', `devnet: external blocks a deposit must be deep before it is attested (default ${bridgeParams.defaultConfirmations}; elsewhere the genesis sets it)`)
        .argParser(integerIn(1, 10_000))
        .env('SVC_BRIDGE_CONFIRMATIONS'),
    )
    .addOption(
      new Option('--bridge-from-block <n>', "devnet: the external block the contract was deployed in, where reading starts (default 0)")
        .argParser(integerIn(0, Number.MAX_SAFE_INTEGER))
        .env('SVC_BRIDGE_FROM_BLOCK'),
    )
    .addOption(
      new Option(
        '--bridge-key-file <file>',
        `file holding this validator's operator key (hex), which attests deposits and signs withdrawals; or the key itself in ${BRIDGE_KEY_ENV}. devnet defaults to dev account 0, its genesis validator`,
      )
        .argParser(nonEmpty)
        .env('SVC_BRIDGE_KEY_FILE'),
    )
    .addOption(new Option('--no-bridge-relay', 'do not send ready withdrawals to the external contract (anyone may relay them)'))
    .addOption(
      new Option('--faucet-address <address>', 'testnet: faucet address the built-in genesis funds, on nodes without its key (default: the key\'s address)')
        .argParser(nonEmpty)
        .env('SVC_FAUCET_ADDRESS'),
    )
    .addOption(
      new Option('--compute-mode <mode>', 'compute contribution: pow, inference, or auto (inference if a supported model loads, else pow)')
        .choices(['pow', 'inference', 'auto'])
        .default('pow')
        .env('SVC_COMPUTE_MODE'),
    )
    .addOption(
      new Option('--inference-backend <backend>', 'inference backend of the node\'s models')
        .choices(['cpu', 'metal', 'cuda', 'auto'])
        .default('auto')
        .env('SVC_INFERENCE_BACKEND'),
    )
    .addOption(new Option('--model-dir <dir>', 'directory for cached model weights').argParser(nonEmpty).default('/models').env('SVC_MODEL_DIR'))
    .addOption(
      new Option('--models <list>', 'comma-separated approved models to load in inference mode (default: all with pinned files)')
        .argParser(nonEmpty)
        .env('SVC_MODELS'),
    )
    .addOption(
      new Option('--pow-threads <n>', 'threads of the proof-of-work search in pow mode (0 = no search: the validator contributes no compute, mode none)')
        .argParser(integerIn(0, 256))
        .default(1)
        .env('SVC_POW_THREADS'),
    )
    .addOption(
      new Option(
        '--proof-precheck-rate <rate>',
        'inference mode: share of miners\' proofs this node re-executes before relaying them, 0..1 or a percentage (a failed spot-check slashes the relaying validator; 0 = off)',
      )
        .argParser(proofPrecheckRate)
        .default(proofPrecheck.rateBps, String(proofPrecheck.rateBps / 10_000))
        .env('SVC_PROOF_PRECHECK_RATE'),
    );
}

/** Parse a boolean environment value. */
export function parseBooleanEnv(name: string, value: string): boolean {
  const v = value.trim().toLowerCase();
  if (['1', 'true', 'yes', 'on'].includes(v)) return true;
  if (['0', 'false', 'no', 'off'].includes(v)) return false;
  throw new UsageError(`environment variable ${name}=${JSON.stringify(value)} is invalid: expected true or false`);
}

/** Turn parsed flags (and the environment for what commander leaves to us) into a NodeConfig. */
export function resolveStartConfig(flags: StartFlags, env: NodeJS.ProcessEnv, cwd: string): NodeConfig {
  const network = flags.network;
  let exempt = flags.rateLimitLoopbackExempt;
  if (exempt === undefined) {
    const raw = env[LOOPBACK_EXEMPT_ENV];
    exempt = raw !== undefined && raw !== '' ? parseBooleanEnv(LOOPBACK_EXEMPT_ENV, raw) : network === 'devnet';
  }
  const config: NodeConfig = {
    network,
    chainId: CHAIN_ID[network],
    dataDir: path.resolve(cwd, flags.dataDir ?? path.join('.svc-data', network)),
    rpcHost: flags.rpcHost,
    rpcPort: flags.rpcPort,
    wsPort: flags.wsPort,
    explorerPort: flags.explorerPort,
    blockTimeMs: flags.blockTimeMs,
    logLevel: flags.logLevel,
    rpcRateLimit: flags.rpcRateLimit,
    rateLimitExemptLoopback: exempt,
    rpcGasCap: flags.rpcGasCap ?? rpcParams.gasCap,
    rpcEvmTimeoutMs: flags.rpcEvmTimeoutMs ?? rpcParams.evmTimeoutMs,
    rpcMaxResponseBytes: flags.rpcMaxResponseBytes ?? rpcParams.maxResponseBytes,
    httpReadTimeoutMs: flags.httpReadTimeoutMs,
    httpWriteTimeoutMs: flags.httpWriteTimeoutMs,
    httpIdleTimeoutMs: flags.httpIdleTimeoutMs,
    maxConnectionsPerIp: flags.maxConnectionsPerIp,
  };
  if (flags.genesis !== undefined) config.genesisFile = path.resolve(cwd, flags.genesis);
  config.consensus = flags.consensus ?? 'solo';
  if (flags.consensus !== 'cometbft' && (flags.cometbftHome !== undefined || flags.abciAddr !== undefined)) {
    throw new UsageError('--cometbft-home and --abci-addr are for --consensus cometbft');
  }
  if (flags.consensus === 'cometbft') config.cometbftHome = path.resolve(cwd, flags.cometbftHome ?? path.join(config.dataDir, 'cometbft'));
  if (flags.consensus === 'cometbft') {
    config.snapshotInterval = flags.snapshotInterval;
    config.snapshotKeep = flags.snapshotKeep;
  }
  if (flags.stateSyncRpc !== undefined || flags.stateSyncTrustHeight !== undefined || flags.stateSyncTrustHash !== undefined) {
    if (flags.consensus !== 'cometbft' || flags.stateSyncRpc === undefined) throw new UsageError('--state-sync-trust-height and --state-sync-trust-hash need --state-sync-rpc, which is for --consensus cometbft');
    if ((flags.stateSyncTrustHeight === undefined) !== (flags.stateSyncTrustHash === undefined)) throw new UsageError('--state-sync-trust-height and --state-sync-trust-hash go together');
    const rpcServers = flags.stateSyncRpc.split(',').map((u) => u.trim()).filter((u) => u !== '');
    if (rpcServers.length === 0 || !rpcServers.every((u) => /^https?:\/\/[^\s,]+$/.test(u))) throw new UsageError('--state-sync-rpc must be http(s) URLs, comma-separated');
    if (flags.stateSyncTrustHash !== undefined && !/^(0x)?[0-9a-fA-F]{64}$/.test(flags.stateSyncTrustHash)) throw new UsageError('--state-sync-trust-hash must be a 32-byte hex hash');
    config.stateSync = {
      rpcServers,
      ...(flags.stateSyncTrustHeight !== undefined ? { trustHeight: flags.stateSyncTrustHeight, trustHash: flags.stateSyncTrustHash!.replace(/^0x/, '').toUpperCase() } : {}),
    };
  }
  if (flags.abciAddr !== undefined) {
    if (!/^(tcp:\/\/[^:]+:\d+|unix:\/\/.+)$/.test(flags.abciAddr)) throw new UsageError('--abci-addr must be tcp://host:port or unix://path');
    config.abciAddr = flags.abciAddr;
  }
  config.computeMode = flags.computeMode;
  config.inferenceBackend = flags.inferenceBackend;
  config.modelDir = path.resolve(cwd, flags.modelDir);
  config.powThreads = flags.powThreads;
  config.proofPrecheckBps = flags.proofPrecheckRate;
  if (flags.models !== undefined) config.models = flags.models.split(',').map((m) => m.trim()).filter((m) => m !== '');
  if (flags.validatorAddress !== undefined) {
    try {
      parseAddress(flags.validatorAddress);
    } catch (err) {
      throw new UsageError(`--validator-address: ${(err as Error).message}`);
    }
    config.validatorAddress = flags.validatorAddress;
  }
  if (flags.trustProxy !== undefined) {
    const entries = TrustedProxies.split(flags.trustProxy);
    try {
      // Checked here so that a bad entry is a usage error (exit 2) before anything starts.
      new TrustedProxies(entries);
      config.trustProxy = entries;
    } catch (err) {
      if (err instanceof TrustedProxyError) throw new UsageError(`--trust-proxy: ${err.message}`);
      throw err;
    }
  }
  if (flags.faucetAddress !== undefined) config.faucetAddress = flags.faucetAddress;
  const faucetKey = resolveKey('faucet', FAUCET_KEY_ENV, flags.faucetKeyFile, env, cwd);
  if (faucetKey) config.faucetKey = faucetKey;
  const bundlerKey = resolveKey('bundler', BUNDLER_KEY_ENV, flags.bundlerKeyFile, env, cwd);
  if (bundlerKey) {
    const refusal = config.network === 'devnet' ? undefined : publicKeyRefusal("the bundler key's address", bundlerKey.addressBytes, config.network);
    if (refusal) throw new UsageError(refusal);
    config.bundlerKey = bundlerKey;
  }
  const bridgeKey = resolveKey('bridge', BRIDGE_KEY_ENV, flags.bridgeKeyFile, env, cwd);
  if (bridgeKey) {
    const refusal = config.network === 'devnet' ? undefined : publicKeyRefusal("the bridge key's address", bridgeKey.addressBytes, config.network);
    if (refusal) throw new UsageError(refusal);
    config.bridgeKey = bridgeKey;
  }
  if (flags.bridgeRpc !== undefined) {
    if (!/^https?:\/\/\S+$/.test(flags.bridgeRpc)) throw new UsageError('--bridge-rpc must be an http:// or https:// URL');
    config.bridgeRpc = flags.bridgeRpc;
  }
  if (flags.bridgeContract !== undefined) {
    try {
      parseAddress(flags.bridgeContract);
    } catch (err) {
      throw new UsageError(`--bridge-contract: ${(err as Error).message}`);
    }
    config.bridgeContract = flags.bridgeContract.toLowerCase();
  }
  if (network !== 'devnet' && (flags.bridgeConfirmations !== undefined || flags.bridgeFromBlock !== undefined)) {
    throw new UsageError('--bridge-confirmations and --bridge-from-block are for the devnet: elsewhere the genesis file sets them');
  }
  if (flags.bridgeConfirmations !== undefined) config.bridgeConfirmations = flags.bridgeConfirmations;
  if (flags.bridgeFromBlock !== undefined) config.bridgeFromBlock = flags.bridgeFromBlock;
  config.bridgeRelay = flags.bridgeRelay ?? true;
  return config;
}

/** An operator's key from --<role>-key-file (SVC_<ROLE>_KEY_FILE) or the variable holding the key itself; never both. */
function resolveKey(role: 'faucet' | 'bundler' | 'bridge', variable: string, file: string | undefined, env: NodeJS.ProcessEnv, cwd: string): FaucetKey | undefined {
  const inline = env[variable];
  const hasInline = inline !== undefined && inline !== '';
  if (file !== undefined && hasInline) {
    throw new UsageError(`give the ${role} key once: --${role}-key-file (SVC_${role.toUpperCase()}_KEY_FILE) or ${variable}, not both`);
  }
  try {
    if (file !== undefined) return readFaucetKeyFile(path.resolve(cwd, file));
    if (hasInline) return new FaucetKey(inline, variable);
  } catch (err) {
    if (err instanceof FaucetKeyError) throw new UsageError(err.message);
    throw err;
  }
  return undefined;
}
