#!/usr/bin/env node
// svc-node: run a node of the svc chain. Exit codes: 0 done, 1 runtime failure, 2 bad flags or environment.
import { Command, CommanderError, Option } from 'commander';
import { FaucetKeyError } from '../chain/faucet-key.js';
import path from 'node:path';
import { GenesisFileError, GenesisUnavailableError, resolveGenesis, resolveNetworkGenesis, type NetworkGenesis } from '../chain/genesis.js';
import { resolveCoinbase, ValidatorAddressError } from '../chain/coinbase.js';
import { createLogger, LOG_LEVELS, type LogLevel } from '../log.js';
import { CHAIN_ID, type NetworkName } from '../params.js';
import { addExplorerCommands } from './explorer.js';
import { addTestnetCommands } from './testnet.js';
import { addStartOptions, resolveStartConfig, UsageError, type StartFlags } from './start-options.js';
import { packageVersion } from '../version.js';

const EXIT_FAILURE = 1;
const EXIT_USAGE = 2;

/** Commander codes that mean "printed what was asked", not an error. */
const INFORMATIONAL = new Set(['commander.helpDisplayed', 'commander.help', 'commander.version']);

async function start(flags: StartFlags): Promise<void> {
  const config = resolveStartConfig(flags, process.env, process.cwd());
  // Checked before the native addon loads, so that configuration mistakes exit 2 with their own message.
  resolveGenesis(config);
  resolveCoinbase(config);
  const log = createLogger(flags.logLevel);
  // Loaded here so that --help and version work before the native addon is built.
  const { startNode, stopOnSignals } = await import('../node.js');
  const { renderBanner } = await import('./banner.js');
  const node = await startNode(config, { log });
  stopOnSignals(node, log);
  process.stdout.write(renderBanner(node, packageVersion()));
  log.info({ url: node.rpcUrl, port: node.rpcPort }, 'rpc listening');
}

interface ReplayFlags {
  from: string;
  to: string;
  network: NetworkName;
  genesis?: string;
  validatorAddress?: string;
  faucetAddress?: string;
  cometbftHome?: string;
  logLevel: LogLevel;
}

/** svc-node replay: rebuild a chain from its block data in a new data dir, checking every root. */
async function replay(flags: ReplayFlags): Promise<void> {
  const config = {
    network: flags.network,
    chainId: CHAIN_ID[flags.network],
    ...(flags.genesis ? { genesisFile: path.resolve(flags.genesis) } : {}),
    ...(flags.validatorAddress ? { validatorAddress: flags.validatorAddress } : {}),
    ...(flags.faucetAddress ? { faucetAddress: flags.faucetAddress } : {}),
  };
  if (flags.cometbftHome && flags.genesis) throw new UsageError('--cometbft-home and --genesis both name a genesis: give one');
  // A CometBFT chain's genesis is its CometBFT genesis.json's app_state, as `svc-node start --consensus cometbft` reads it.
  const genesis = flags.cometbftHome ? await cometbftGenesis(path.resolve(flags.cometbftHome), config.chainId) : resolveNetworkGenesis(config);
  const log = createLogger(flags.logLevel);
  const { replayChain } = await import('../chain/replay.js');
  const started = Date.now();
  let last = started;
  const result = await replayChain({
    from: path.resolve(flags.from),
    to: path.resolve(flags.to),
    genesis,
    chainId: config.chainId,
    log,
    onBlock: (height, root) => {
      if (Date.now() - last >= 5000) {
        last = Date.now();
        log.info({ height, stateRoot: `0x${root.toString('hex')}` }, 'replaying');
      }
    },
  });
  const seconds = (Date.now() - started) / 1000;
  process.stdout.write(
    `replayed ${result.blocks} blocks in ${seconds.toFixed(1)} s: every hash and state root matches\n` +
      `head ${result.head.number} 0x${result.head.hash.toString('hex')} state root 0x${result.head.stateRoot.toString('hex')}\n`,
  );
}

async function cometbftGenesis(home: string, chainId: number): Promise<NetworkGenesis> {
  const [{ readCometGenesis }, { cometAppGenesis }] = await Promise.all([import('../consensus/cometbft/home.js'), import('../node.js')]);
  return cometAppGenesis(readCometGenesis(home), chainId);
}

async function printVersion(): Promise<void> {
  const lines = [`svc-node ${packageVersion()}`, `node ${process.version}`];
  try {
    const { core } = await import('../native/index.js');
    lines.push(`svc-core ${core.version()}`);
  } catch (err) {
    lines.push(`svc-core unavailable (${(err as Error).message})`);
  }
  process.stdout.write(lines.join('\n') + '\n');
}

function buildProgram(): Command {
  const program = new Command('svc-node')
    .description('Node of the svc chain: EVM-compatible proof-of-stake with JSON-RPC, solo devnet by default')
    .version(packageVersion())
    .exitOverride()
    .showHelpAfterError('(run with --help for usage)');

  addStartOptions(
    program
      .command('start')
      .description('open the chain database and run the node (solo block production and JSON-RPC)')
      .action((flags: StartFlags) => start(flags)),
  );
  program
    .command('replay')
    .description('rebuild a chain from the block data of a data dir into a new data dir, checking every block hash and state root (stop the node first)')
    .requiredOption('--from <dir>', 'data dir of the chain to replay')
    .requiredOption('--to <dir>', 'new data dir to build (absent or empty)')
    .addOption(new Option('--network <name>', 'network of the chain').choices(['devnet', 'testnet', 'mainnet']).default('devnet').env('SVC_NETWORK'))
    .addOption(new Option('--genesis <file>', 'genesis file the chain was started with').env('SVC_GENESIS'))
    .addOption(new Option('--validator-address <address>', "testnet: the built-in genesis's validator").env('SVC_VALIDATOR_ADDRESS'))
    .addOption(new Option('--faucet-address <address>', "testnet: the built-in genesis's faucet").env('SVC_FAUCET_ADDRESS'))
    .addOption(new Option('--cometbft-home <dir>', "a CometBFT chain: the CometBFT home whose genesis.json (its app_state) the chain was started with"))
    .addOption(new Option('--log-level <level>', 'log level').choices([...LOG_LEVELS]).default('info'))
    .action((flags: ReplayFlags) => replay(flags));
  program
    .command('version')
    .description('print the versions of svc-node, Node.js and the native core')
    .action(() => printVersion());
  addExplorerCommands(program);
  addTestnetCommands(program);
  return program;
}

async function main(argv: string[]): Promise<void> {
  try {
    const program = buildProgram();
    // No command: show what there is to run rather than an error.
    if (argv.length <= 2) program.help();
    await program.parseAsync(argv);
  } catch (err) {
    if (err instanceof CommanderError) {
      process.exitCode = INFORMATIONAL.has(err.code) ? err.exitCode : EXIT_USAGE;
      return;
    }
    const usage =
      err instanceof UsageError ||
      err instanceof GenesisUnavailableError ||
      err instanceof GenesisFileError ||
      err instanceof FaucetKeyError ||
      err instanceof ValidatorAddressError ||
      (err instanceof Error && (err.name === 'TestnetError' || err.name === 'CometHomeError'));
    process.stderr.write(`svc-node: error: ${err instanceof Error ? err.message : String(err)}\n`);
    process.exit(usage ? EXIT_USAGE : EXIT_FAILURE);
  }
}

await main(process.argv);
