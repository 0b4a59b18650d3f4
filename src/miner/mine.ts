// svc-miner's default action: check the keys, find the models this machine can run, then mine
// until SIGINT/SIGTERM; and `--generate-wallet`.
import type { Command } from 'commander';
import { InferenceUnavailableError } from '../native/inference.js';
import { progressBar } from '../inference/progress.js';
import { addonEngine, type InferenceEngine } from './engine.js';
import { inferenceSettings } from './inference-options.js';
import { Miner, MinerConfigError } from './miner.js';
import { RpcClient } from './rpc-client.js';
import { StatusLine } from './status.js';
import { generateWallet, KeyError, minerKeys } from './wallet.js';

/** The program's options (cli.ts). */
export interface MineFlags {
  wallet?: string;
  privateKey?: string;
  validatorRpc: string;
  backend: string;
  modelDir: string;
  maxMemory: number;
  hotModels?: string;
  generateWallet?: boolean;
  verbose?: boolean;
  pollInterval: number;
}

/** How long a stop waits for an in-flight submission. */
const STOP_GRACE_MS = 5000;

/** `--generate-wallet`: the key and its wallet as JSON on stdout, a backup note on stderr. */
export function printGeneratedWallet(): void {
  const w = generateWallet();
  process.stdout.write(`${JSON.stringify(w, null, 2)}\n`);
  process.stderr.write(
    'svc-miner: back up privateKey: it is the only secret (walletKey derives from it and is what an Ethereum wallet imports to spend rewards). ' +
      `Mine with --wallet ${w.address} --private-key <privateKey>.\n`,
  );
}

function usage(self: Command, message: string): never {
  self.error(`error: ${message}`, { exitCode: 2, code: 'svc.usage' });
}

export async function mine(opts: MineFlags, self: Command): Promise<void> {
  const missing = [!opts.wallet && '--wallet (SVC_MINER_WALLET)', !opts.privateKey && '--private-key (SVC_MINER_PRIVATE_KEY)'].filter(Boolean);
  if (missing.length > 0) {
    usage(self, `mining needs ${missing.join(' and ')}; run \`svc-miner --generate-wallet\` to make a key and its wallet`);
  }
  let keys;
  try {
    keys = minerKeys(opts.privateKey!, opts.wallet!);
  } catch (e) {
    if (e instanceof KeyError) usage(self, e.message);
    throw e;
  }
  let rpc: RpcClient;
  try {
    rpc = new RpcClient(opts.validatorRpc);
  } catch (e) {
    usage(self, (e as Error).message);
  }
  let settings;
  try {
    settings = inferenceSettings(self);
  } catch (e) {
    usage(self, (e as Error).message);
  }
  const { backend, modelDir } = settings;
  const status = new StatusLine({ verbose: Boolean(opts.verbose) });
  let engine: InferenceEngine;
  try {
    engine = addonEngine(backend, modelDir, opts.maxMemory, status.around(progressBar()));
  } catch (e) {
    if (!(e instanceof InferenceUnavailableError)) throw e;
    process.stderr.write(`svc-miner: cannot mine: ${e.message}\n`);
    process.exitCode = 1;
    return;
  }
  let miner: Miner;
  try {
    miner = new Miner({
      keys,
      rpc,
      engine,
      reporter: status,
      hotModels: opts.hotModels?.split(',') ?? [],
      maxMemoryMb: opts.maxMemory,
      pollIntervalMs: opts.pollInterval,
    });
  } catch (e) {
    if (e instanceof MinerConfigError) usage(self, e.message);
    throw e;
  }
  status.info(
    `mining for wallet ${keys.address} through ${opts.validatorRpc} (tier ${miner.tier}, models ${miner.models.join(', ')}, backend ${miner.backend})`,
  );

  let exiting = false;
  let finished = false;
  const finish = (code: number) => {
    if (finished) return;
    finished = true;
    status.finish();
    // Exit once the line is out (the timer also keeps the process alive until then).
    const timer = setTimeout(() => process.exit(code), 1000);
    process.stdout.write(`svc-miner: ${miner.summary()}\n`, () => {
      clearTimeout(timer);
      process.exit(code);
    });
  };
  const onSignal = (signal: NodeJS.Signals) => {
    if (exiting) {
      // A second signal: do not wait any longer.
      finish(130);
      return;
    }
    exiting = true;
    status.debug(`${signal}: stopping`);
    const grace = new Promise<void>((resolve) => setTimeout(resolve, STOP_GRACE_MS));
    void Promise.race([miner.stop(), grace]).then(() => finish(0));
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);

  try {
    await miner.run();
  } catch (e) {
    if (exiting) return;
    status.finish();
    process.stderr.write(`svc-miner: ${(e as Error).message}\n`);
    process.exit(1);
  }
  // run() returns once stopped, and the signal handler exits.
  if (!exiting) finish(0);
}
