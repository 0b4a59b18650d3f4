#!/usr/bin/env node
// svc-miner: the inference miner. This release declares its interface (the spec's flags and
// SVC_MINER_* variables); mining itself lands with the compute issue, so it refuses to pretend.
import { Command, CommanderError, InvalidArgumentError, Option } from 'commander';
import { packageVersion } from '../cli/version.js';
import { registerInferenceCommands } from './infer.js';

const EXIT_UNAVAILABLE = 1;
const EXIT_USAGE = 2;
const INFORMATIONAL = new Set(['commander.helpDisplayed', 'commander.help', 'commander.version']);
const BACKENDS = ['cpu', 'metal', 'cuda', 'auto'] as const;
const DEFAULT_VALIDATOR_RPC = 'http://127.0.0.1:8545';

function megabytes(value: string): number {
  if (!/^\d+$/.test(value.trim())) throw new InvalidArgumentError('expected a whole number of megabytes (0 = auto).');
  return Number(value.trim());
}

function buildProgram(): Command {
  const program = new Command('svc-miner')
    .description(
      'Inference miner of the svc chain: runs approved models and submits signed proofs to a validator.\n\n' +
        'Mining is not available in this release; it lands with the compute issue. ' +
        'Flags and SVC_MINER_* variables are listed so that deployments can be prepared.',
    )
    .version(packageVersion())
    .exitOverride()
    .addOption(new Option('--wallet <address>', 'miner wallet address (required)').env('SVC_MINER_WALLET'))
    .addOption(new Option('--private-key <key>', 'Ed25519 private key (required)').env('SVC_MINER_PRIVATE_KEY'))
    .addOption(new Option('--validator-rpc <url>', 'validator RPC endpoint').default(DEFAULT_VALIDATOR_RPC).env('SVC_MINER_RPC_URL'))
    .addOption(new Option('--backend <backend>', 'inference backend').choices(BACKENDS).default('auto').env('SVC_MINER_BACKEND'))
    .addOption(new Option('--model-dir <dir>', 'model cache directory').default('./models').env('SVC_MINER_MODEL_DIR'))
    .addOption(
      new Option('--max-memory <mb>', 'maximum memory in MB (0 = auto)').argParser(megabytes).default(0).env('SVC_MINER_MAX_MEMORY'),
    )
    .addOption(new Option('--hot-models <list>', 'comma-separated models to keep loaded').env('SVC_MINER_HOT_MODELS'))
    .addOption(new Option('--generate-wallet', 'generate a wallet (address and private key) and exit').env('SVC_MINER_GENERATE_WALLET'))
    .addOption(new Option('--verbose', 'enable debug logging').env('SVC_MINER_VERBOSE'))
    .action(() => {
      // Without any flag the user asked what the program does; with flags they asked it to mine.
      if (process.argv.length <= 2) program.help();
      process.stderr.write('svc-miner: mining is not available in this release (it lands with the compute issue)\n');
      process.exit(EXIT_UNAVAILABLE);
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
