// A running node: chain database, pool, event bus, metrics, JSON-RPC server and the solo driver,
// started in that order and stopped in reverse.
import path from 'node:path';
import type { Logger } from 'pino';
import type { NodeConfig } from './config.js';
import { core, type Chain, type GenesisSpec } from './native/index.js';
import { createNodeEvents } from './chain/events.js';
import { appGenesis, ChainApp } from './chain/app.js';
import { secureDataDir } from './chain/data-dir.js';
import { parseNetworkGenesis, resolveNetworkGenesis, type NetworkGenesis } from './chain/genesis.js';
import { Mempool } from './chain/mempool.js';
import { PoolJournal, registerJournalMetrics, replayIntoPool } from './chain/pool-journal.js';
import type { NodeServices } from './services.js';
import { resolveCoinbase } from './chain/coinbase.js';
import { SoloDriver } from './consensus/solo.js';
import { DevChain } from './consensus/dev-chain.js';
import { DevSnapshots } from './consensus/dev-snapshots.js';
import { CometApplication } from './consensus/cometbft/application.js';
import { CometbftDriver } from './consensus/cometbft/driver.js';
import { SnapshotStore } from './consensus/cometbft/snapshots.js';
import { configureStateSync } from './consensus/cometbft/state-sync.js';
import { GossipPool } from './consensus/cometbft/gossip-pool.js';
import { messageTx } from './consensus/cometbft/block-txs.js';
import { CometNetworkView } from './consensus/cometbft/network-view.js';
import { SoloNetwork } from './consensus/network.js';
import { readCometGenesis, readValidatorKey, readValidatorSigningKey, type CometGenesis } from './consensus/cometbft/home.js';
import { ModeAnnouncer } from './consensus/cometbft/mode-announcer.js';
import type { ConsensusDriver } from './consensus/driver.js';
import { BlockProduction, registerProductionMetrics } from './consensus/production.js';
import { abandonLogger, closeLogger, createLogger, isLogLevel } from './log.js';
import { createMetrics } from './metrics.js';
import {
  compute as defaultComputeParams,
  governance as defaultGovernanceParams,
  rpc as rpcParams,
  staking as stakingParams,
  type ComputeParams,
  type GovernanceParams,
  type RentParams,
  type StakingParams,
} from './params.js';
import { NodeCompute } from './compute/index.js';
import { registerComputeMetrics } from './compute/metrics.js';
import { toAddress } from './modules/kernel/module.js';
import { createRpcContext } from './rpc/context.js';
import { Bundler } from './aa/bundler.js';
import { registerBundlerMetrics } from './aa/metrics.js';
import { BridgeAgent } from './bridge/agent.js';
import { devnetBridgeGenesis, refuseOtherBridge, bridgeOperatorKey } from './bridge/node-config.js';
import { startRpcServer } from './rpc/server.js';
import { startExplorer, type RunningExplorer } from './explorer/index.js';
import { attachLiveFeed } from './explorer/live/feed.js';
import { startWsServer } from './rpc/ws/server.js';

export interface RunningNode {
  config: NodeConfig;
  services: NodeServices;
  genesis: GenesisSpec;
  mempool: Mempool;
  app: ChainApp;
  driver: ConsensusDriver;
  /** The address the solo driver seals blocks for. */
  coinbase: Buffer;
  /** Port the JSON-RPC server listens on (the actual one when 0 was asked for). */
  rpcPort: number;
  rpcUrl: string;
  /** JSON-RPC over WebSocket (eth_subscribe) and its URL. */
  wsPort: number;
  wsUrl: string;
  /** The explorer (indexer and REST API) and its base URL (the API is under /api/v1). */
  explorer: RunningExplorer;
  explorerUrl: string;
  /** The explorer's socket.io live feed, on the explorer's port. */
  liveFeed: { close(): Promise<void> };
  /** Close RPC, stop block production (waiting for the block in flight), close the database. Idempotent. */
  stop(): Promise<void>;
}

export interface StartOptions {
  /** Logger to use instead of a fresh one at config.logLevel. */
  log?: Logger;
  /** Staking parameters instead of params.staking (tests shorten periods; every node of a chain must use the same). */
  stakingParams?: StakingParams;
  /** Block clock of the solo driver, milliseconds (tests step it). */
  now?: () => number;
  /** Compute parameters instead of params.compute (tests force spot-checks, shorten windows; every node of a chain must use the same). */
  computeParams?: ComputeParams;
  /** Governance parameters instead of params.governance (tests shorten periods; every node of a chain must use the same). */
  governanceParams?: GovernanceParams;
  /** Rent parameters instead of params.rent (tests make accounts dormant within a test; every node of a chain must use the same). */
  rentParams?: RentParams;
}

/** Open the chain in config.dataDir and start serving and producing blocks. */
export async function startNode(config: NodeConfig, options: StartOptions = {}): Promise<RunningNode> {
  if (!isLogLevel(config.logLevel)) throw new Error(`unknown log level "${config.logLevel}"`);
  const log = options.log ?? createLogger(config.logLevel);
  const comet = config.consensus === 'cometbft' ? readCometGenesis(config.cometbftHome!) : undefined;
  // devnet: --bridge-contract puts a bridge in the built-in genesis, with the chain id --bridge-rpc answers.
  if (config.network === 'devnet' && !config.genesisFile && config.bridgeContract !== undefined && !config.devnetBridge) {
    config = { ...config, devnetBridge: await devnetBridgeGenesis(config) };
  }
  const networkGenesis = comet && !config.genesisFile ? cometAppGenesis(comet, config.chainId) : resolveNetworkGenesis(config);
  const genesis = networkGenesis.spec;
  let coinbase = resolveCoinbase(config);

  // Owner only: the data dir holds the database and the explorer's secrets (an older dir is narrowed).
  secureDataDir(config.dataDir);
  // Heavy reads run on bounded native lanes; block production has a thread of its own.
  core.configureLanes(rpcParams.lanes);
  const chain: Chain = core.Chain.open(config.dataDir, genesis, {
    rpcGasCap: config.rpcGasCap ?? rpcParams.gasCap,
    rpcEvmTimeoutMs: config.rpcEvmTimeoutMs ?? rpcParams.evmTimeoutMs,
    maxResponseBytes: config.rpcMaxResponseBytes ?? rpcParams.maxResponseBytes,
    stateHistory: 0,
  });
  let journal: PoolJournal | undefined;
  try {
    const events = createNodeEvents();
    const mempool = new Mempool({ chain, chainId: config.chainId, events, limits: { blockGasLimit: genesis.gasLimit } });
    const app = new ChainApp(
      chain,
      mempool,
      options.stakingParams ?? stakingParams,
      appGenesis(networkGenesis),
      log.child({ module: 'app' }),
      options.computeParams ?? defaultComputeParams,
      options.governanceParams ?? defaultGovernanceParams,
      options.rentParams,
    );
    // A CometBFT validator is the operator registered with its consensus key (a node whose key is
    // not registered yet keeps --validator-address, or the devnet's default).
    if (comet) coinbase = operatorOfKey(app, readValidatorKey(config.cometbftHome!)) ?? coinbase;
    const metrics = createMetrics(mempool);
    const head = chain.head();
    metrics.headBlock.set(head.number);
    // Acknowledged transactions from before a crash go back in the pool before anything is served.
    const journalLog = log.child({ module: 'pool-journal' });
    journal = await PoolJournal.open(config.dataDir, head.number, journalLog, (records) => replayIntoPool(mempool, chain, records, journalLog));
    mempool.useJournal(journal);
    const poolJournal = journal;
    const poolEntries = () => mempool.journalEntries();
    events.on('block', (produced) => void poolJournal.compactIfDue(produced.head.number, poolEntries));
    const compute = await NodeCompute.start({
      app,
      chain,
      events,
      chainId: config.chainId,
      validator: toAddress(coinbase),
      setting: config.computeMode ?? 'pow',
      backend: config.inferenceBackend ?? 'auto',
      modelDir: config.modelDir ?? '/models',
      ...(config.models ? { models: config.models } : {}),
      powThreads: config.powThreads ?? 1,
      ...(config.proofPrecheckBps !== undefined ? { proofPrecheckBps: config.proofPrecheckBps } : {}),
      log,
    });
    registerComputeMetrics(metrics.registry, app, compute);
    const production = new BlockProduction(config.blockTimeMs);
    registerProductionMetrics(metrics.registry, production);
    registerJournalMetrics(metrics.registry, poolJournal);
    const application = comet
      ? new CometApplication({
          app,
          chain,
          mempool,
          events,
          metrics,
          log,
          production,
          chainId: comet.chainId,
          snapshots: new SnapshotStore(
            { dir: path.join(config.dataDir, 'snapshots'), interval: config.snapshotInterval ?? 1000, keep: config.snapshotKeep ?? 2 },
            chain,
            log.child({ module: 'snapshots' }),
          ),
        })
      : undefined;
    const cometDriver = application
      ? new CometbftDriver({ application, production, log, home: config.cometbftHome!, ...(config.abciAddr ? { abciAddr: config.abciAddr } : {}) })
      : undefined;
    if (cometDriver) {
      // Miners' registrations and proofs, and pow shares, travel the network's mempool to every validator.
      const outboxLog = log.child({ module: 'compute-outbox' });
      // CometBFT unreachable (starting, restarting) is logged once until it answers again.
      let unreachable = false;
      app.compute.useOutbox((message) => {
        cometDriver.client.broadcastTxSync(messageTx(message)).then(
          (answer) => {
            unreachable = false;
            if (answer.code !== 0) outboxLog.debug({ reason: answer.log }, 'the network mempool refused a compute message');
          },
          (err: unknown) => {
            if (!unreachable) outboxLog.warn({ err }, 'compute messages cannot be sent to CometBFT; dropped until it answers');
            unreachable = true;
          },
        );
      });
    }
    // A CometBFT validator signs its compute mode with its consensus key and sends it to the
    // network's mempool, so that every node records it from a block (not only once it proposes).
    const signingKey = cometDriver ? readValidatorSigningKey(config.cometbftHome!) : undefined;
    const announcer =
      cometDriver && signingKey
        ? new ModeAnnouncer({
            app,
            chain,
            events,
            send: (tx) => cometDriver.client.broadcastTxSync(tx),
            chainId: config.chainId,
            validator: toAddress(coinbase),
            mode: compute.mode,
            key: signingKey,
            log: log.child({ module: 'compute-mode' }),
          })
        : undefined;
    const network = cometDriver ? new CometNetworkView(chain, cometDriver.client, log.child({ module: 'network' })) : new SoloNetwork(chain);
    // On a CometBFT network a submitted transaction goes to the network's mempool (and CheckTx fills this pool).
    const gossip = cometDriver ? new GossipPool(mempool, cometDriver.client, log.child({ module: 'gossip' })) : undefined;
    const submitPool = gossip ?? mempool;
    // On a network user operations gossip too, and the proposer bundles them.
    const bundler = new Bundler({
      config,
      chain,
      mempool: submitPool,
      events,
      log,
      coinbase,
      ...(gossip ? { network: { gossip: (operation: Buffer) => gossip.gossipUserOperation(operation) } } : {}),
    });
    application?.useUserOperations(bundler);
    registerBundlerMetrics(metrics.registry, bundler);
    refuseOtherBridge(config, app.bridge.config);
    const bridgeKey = bridgeOperatorKey(config, coinbase);
    const bridge = new BridgeAgent({
      app,
      chain,
      mempool: submitPool,
      events,
      log,
      chainId: config.chainId,
      ...(config.bridgeRpc ? { rpcUrl: config.bridgeRpc } : {}),
      ...(bridgeKey ? { privateKey: bridgeKey } : {}),
      relay: config.bridgeRelay !== false,
    });
    const soloDriver = cometDriver
      ? undefined
      : new SoloDriver({
          app,
          events,
          log,
          metrics,
          blockTimeMs: config.blockTimeMs,
          coinbase,
          production,
          ...(options.now ? { now: options.now } : {}),
        });
    // The development methods: a solo node of a chain whose genesis makes it a devnet.
    const dev =
      soloDriver && config.network === 'devnet' && appGenesis(networkGenesis).devnet
        ? new DevChain(
            soloDriver,
            chain,
            (a) => app.modules.isModule(a),
            new DevSnapshots({ driver: soloDriver, chain, app, mempool, journal: poolJournal, log: log.child({ module: 'dev' }) }),
          )
        : undefined;
    const services: NodeServices = {
      compute,
      config,
      chain,
      mempool: submitPool,
      bundler,
      bridge,
      app,
      queries: app.queries,
      events,
      log,
      metrics: metrics.registry,
      coinbase,
      startingBlock: head.number,
      production,
      transactionJournal: poolJournal,
      network,
      ...(dev ? { dev } : {}),
    };
    // Listeners started so far are closed again if a later one cannot start (a port in use).
    const started: { close(): Promise<void> }[] = [];
    let server, ws, explorer, liveFeed;
    // Filters and faucet cooldowns are the node's, whichever transport a client uses.
    const rpc = createRpcContext(services);
    started.push({ close: async () => rpc.close() });
    try {
      server = await startRpcServer(services, { context: rpc.context });
      started.push(server);
      ws = await startWsServer(services, log, { context: rpc.context });
      started.push(ws);
      explorer = await startExplorer(services, { host: config.rpcHost, port: config.explorerPort, log });
      started.push(explorer);
      liveFeed = attachLiveFeed(explorer, log);
    } catch (err) {
      for (const s of started.reverse()) await s.close().catch(() => undefined);
      bundler.close();
      bridge.close();
      await compute.stop();
      throw err;
    }
    const driver: ConsensusDriver = cometDriver ?? soloDriver!;
    try {
      if (cometDriver && config.stateSync && chain.head().number === 0 && !config.abciAddr) {
        // An empty node joins by state sync (CometBFT skips it once it has state).
        const trusted = await configureStateSync(config.cometbftHome!, config.stateSync, config.snapshotInterval ?? 1000);
        log.info({ rpc: config.stateSync.rpcServers, trustHeight: trusted.height, trustHash: trusted.hash }, 'joining by state sync');
      }
      await driver.start();
      if (network instanceof CometNetworkView) network.start();
      announcer?.start();
      bridge.start();
    } catch (err) {
      announcer?.stop();
      for (const s of started.reverse()) await s.close().catch(() => undefined);
      await compute.stop();
      throw err;
    }
    log.info(
      { network: config.network, chainId: config.chainId, dataDir: config.dataDir, head: head.number, blockTimeMs: config.blockTimeMs },
      'node started',
    );

    let stopping: Promise<void> | undefined;
    return {
      config,
      services,
      genesis,
      mempool,
      app,
      driver,
      coinbase,
      rpcPort: server.port,
      rpcUrl: httpUrl(config.rpcHost, server.port),
      wsPort: ws.port,
      wsUrl: httpUrl(config.rpcHost, ws.port).replace(/^http/, 'ws'),
      explorer,
      explorerUrl: httpUrl(config.rpcHost, explorer.server.port),
      liveFeed,
      stop() {
        stopping ??= (async () => {
          try {
            announcer?.stop();
            bundler.close();
            bridge.close();
            await compute.stop();
            await ws.close();
            // The feed is attached to the explorer's HTTP server: it goes first.
            await liveFeed.close();
            await server.close();
            rpc.close();
            await explorer.close();
            network.close();
            await driver.stop();
            await poolJournal.close(poolEntries);
          } finally {
            dev?.snapshots.close();
            chain.close();
            log.info('node stopped');
          }
        })();
        return stopping;
      },
    };
  } catch (err) {
    await journal?.close();
    chain.close();
    throw err;
  }
}

/** Stop the node gracefully on SIGINT or SIGTERM, then exit; a second signal exits at once. */
export function stopOnSignals(node: RunningNode, log: Logger): void {
  let received = false;
  const exit = async (code: number): Promise<never> => {
    await closeLogger(log);
    process.exit(code);
  };
  const onSignal = (signal: NodeJS.Signals): void => {
    if (received) {
      log.warn({ signal }, 'second signal: exiting without a clean shutdown');
      abandonLogger(log);
      process.exit(1);
    }
    received = true;
    log.info({ signal }, 'shutting down');
    node.stop().then(
      () => exit(0),
      (err: unknown) => {
        log.error({ err }, 'shutdown failed');
        return exit(1);
      },
    );
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
}

/** The node's genesis from CometBFT's genesis.json (its app_state), checked as a genesis file is. */
export function cometAppGenesis(comet: CometGenesis, chainId: number): NetworkGenesis {
  const genesis = parseNetworkGenesis(comet.appState, chainId, `${comet.file} app_state`);
  // CometBFT's first block has the genesis time: it must come after the app's genesis block.
  if (comet.genesisTimeMs <= genesis.spec.timestamp * 1000) {
    throw new Error(`${comet.file}: genesis_time must be after app_state.timestamp (${genesis.spec.timestamp} s), the app's genesis block`);
  }
  return genesis;
}

/** The operator of the validator registered with this consensus key, if one is. */
function operatorOfKey(app: ChainApp, key: Buffer | undefined): Buffer | undefined {
  if (!key) return undefined;
  const hex = `0x${key.toString('hex')}`;
  const v = app.staking.state.validators().find((x) => x.consensusKey === hex);
  return v ? Buffer.from(v.operator.slice(2), 'hex') : undefined;
}

/** http URL of a host and port (IPv6 hosts in brackets). */
export function httpUrl(host: string, port: number): string {
  return `http://${host.includes(':') ? `[${host}]` : host}:${port}`;
}
