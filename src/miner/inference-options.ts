// The backend and model directory of the inference commands. svc-miner declares --backend and
// --model-dir on the program (env SVC_MINER_BACKEND / SVC_MINER_MODEL_DIR); when neither the flag
// nor that variable is set, the node's variables SVC_INFERENCE_BACKEND / SVC_MODEL_DIR apply.
import { Command, CommanderError, Option } from 'commander';
import type { InferenceBackend } from '../native/inference.js';

export const BACKENDS = ['cpu', 'metal', 'cuda', 'auto'] as const;
const DEFAULT_MODEL_DIR = './models';

export interface InferenceSettings {
  backend: InferenceBackend;
  modelDir: string;
}

function declaringCommand(cmd: Command, attr: string): Command | null {
  for (let c: Command | null = cmd; c; c = c.parent) {
    if (c.options.some((o) => o.attributeName() === attr)) return c;
  }
  return null;
}

/** Adds --backend and --model-dir to `cmd` unless an ancestor (the svc-miner program) declares them. */
export function addInferenceOptions(cmd: Command, parent: Command): Command {
  if (!declaringCommand(parent, 'backend')) {
    cmd.addOption(new Option('--backend <backend>', 'inference backend (env SVC_INFERENCE_BACKEND)').choices(BACKENDS));
  }
  if (!declaringCommand(parent, 'modelDir')) {
    cmd.addOption(new Option('--model-dir <dir>', `model cache directory (env SVC_MODEL_DIR, default ${DEFAULT_MODEL_DIR})`));
  }
  return cmd;
}

function explicit(cmd: Command, attr: string): string | undefined {
  const owner = declaringCommand(cmd, attr);
  if (!owner) return undefined;
  const source = owner.getOptionValueSource(attr);
  return source === 'cli' || source === 'env' ? String(owner.getOptionValue(attr)) : undefined;
}

/** Resolves the settings for a command: flag, then SVC_MINER_*, then the node's variables, then defaults. */
export function inferenceSettings(cmd: Command): InferenceSettings {
  const backend = explicit(cmd, 'backend') ?? process.env.SVC_INFERENCE_BACKEND ?? 'auto';
  if (!(BACKENDS as readonly string[]).includes(backend)) {
    throw new Error(`unknown backend ${JSON.stringify(backend)} (expected ${BACKENDS.join(', ')})`);
  }
  const modelDir = explicit(cmd, 'modelDir') ?? process.env.SVC_MODEL_DIR ?? DEFAULT_MODEL_DIR;
  return { backend: backend as InferenceBackend, modelDir };
}

/** Prints a failed command's error as one line and exits non-zero; usage errors stay commander's. */
export function reportingErrors<A extends unknown[]>(action: (...args: A) => Promise<void>): (...args: A) => Promise<void> {
  return async (...args: A) => {
    try {
      await action(...args);
    } catch (err) {
      if (err instanceof CommanderError) throw err;
      process.stderr.write(`svc-miner: ${(err as Error).message}\n`);
      process.exitCode = 1;
    }
  };
}
