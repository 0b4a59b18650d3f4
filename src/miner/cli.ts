#!/usr/bin/env node
// svc-miner: the inference miner. Its default action mines (mine.ts); `--generate-wallet` makes a
// key and its wallet; `infer` and `models` run and list the approved models.
import { Command, CommanderError, InvalidArgumentError, Option } from 'commander';
import { packageVersion } from '../version.js';
import { registerInferenceCommands } from './infer.js';
import { mine, printGeneratedWallet, type MineFlags } from './mine.js';
import { DEFAULT_POLL_INTERVAL_MS } from './miner.js';

const EXIT_USAGE = 2;
const INFORMATIONAL = new Set(['commander.helpDisplayed', 'commander.help', 'commander.version']);
const BACKENDS = ['cpu', 'metal', 'cuda', 'auto'] as const;
const DEFAULT_VALIDATOR_RPC = 'http://127.0.0.1:8545';

function megabytes(value: string): number {
  if (!/^\d+$/.test(value.trim())) throw new InvalidArgumentError('expected a whole number of megabytes (0 = auto).');
  return Number(value.trim());
}

function milliseconds(value: string): number {
  const n = Number(value.trim());
  if (!/^\d+$/.test(value.trim()) || n < 1) throw new InvalidArgumentError('expected a whole number of milliseconds, at least 1.');
  return n;
}

/** Variables that ask for mining (or a wallet) even when no argument is given. */
const ACTION_VARIABLES = ['SVC_MINER_WALLET', 'SVC_MINER_PRIVATE_KEY', 'SVC_MINER_GENERATE_WALLET'];

function buildProgram(): Command {
  const program = new Command('svc-miner')
    .description(
      'Inference miner of the svc chain: registers with a validator, runs the approved models on the tasks assigned ' +
        'to it and submits Ed25519-signed proofs; rewards go to the wallet.\n\n' +
        'Start with `svc-miner --generate-wallet`, then `svc-miner --wallet <address> --private-key <key>`.',
    )
    .version(packageVersion())
    .exitOverride()
    .addOption(new Option('--wallet <address>', 'miner wallet address (required; derived from the private key)').env('SVC_MINER_WALLET'))
    .addOption(new Option('--private-key <key>', 'Ed25519 private key, 0x + 64 hex digits (required)').env('SVC_MINER_PRIVATE_KEY'))
    .addOption(new Option('--validator-rpc <url>', 'validator RPC endpoint').default(DEFAULT_VALIDATOR_RPC).env('SVC_MINER_RPC_URL'))
    .addOption(new Option('--backend <backend>', 'inference backend').choices(BACKENDS).default('auto').env('SVC_MINER_BACKEND'))
    .addOption(new Option('--model-dir <dir>', 'model cache directory').default('./models').env('SVC_MINER_MODEL_DIR'))
    .addOption(
      new Option('--max-memory <mb>', 'maximum memory in MB (0 = auto)').argParser(megabytes).default(0).env('SVC_MINER_MAX_MEMORY'),
    )
    .addOption(new Option('--hot-models <list>', 'comma-separated models to keep loaded').env('SVC_MINER_HOT_MODELS'))
    .addOption(new Option('--generate-wallet', 'generate a wallet (address and private key) and exit').env('SVC_MINER_GENERATE_WALLET'))
    .addOption(new Option('--verbose', 'enable debug logging').env('SVC_MINER_VERBOSE'))
    .addOption(
      new Option('--poll-interval <ms>', 'task polling interval in ms')
        .argParser(milliseconds).default(DEFAULT_POLL_INTERVAL_MS).env('SVC_MINER_POLL_INTERVAL').hideHelp(),
    )
    .action(async (opts: MineFlags, self: Command) => {
      // Without any flag (or variable) the user asked what the program does; with flags they asked it to mine.
      if (process.argv.length <= 2 && !ACTION_VARIABLES.some((v) => process.env[v])) program.help();
      if (opts.generateWallet) {
        printGeneratedWallet();
        return;
      }
      await mine(opts, self);
    });
  registerInferenceCommands(program);
  return program;
}

try {
  await buildProgram().parseAsync(process.argv);
} catch (err) {
  if (!(err instanceof CommanderError)) throw err;
  process.exitCode = INFORMATIONAL.has(err.code) ? err.exitCode : EXIT_USAGE;
}
