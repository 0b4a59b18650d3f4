// `svc-miner infer`: runs an approved model on one input and prints the canonical output as JSON,
// the fields a proof is built from. Weights are downloaded on first use (then used offline).
import { Command, InvalidArgumentError, Option } from 'commander';
import { inferenceAddon, type InferenceOutput } from '../native/inference.js';
import { ensureModelFiles } from '../inference/model-store.js';
import { progressBar } from '../inference/progress.js';
import { addInferenceOptions, inferenceSettings, reportingErrors } from './inference-options.js';
import { registerModelCommands } from './models.js';

/** The JSON that `svc-miner infer` prints. */
export interface InferReport {
  model_id: string;
  dims: number;
  output: number[];
  quantized: number[];
  output_hash: string;
  input_hash: string;
  flops: number;
  execution_time_ms: number;
  backend: string;
}

const hex = (b: Buffer) => `0x${b.toString('hex')}`;

export function inferReport(out: InferenceOutput, backend: string, executionMs: number): InferReport {
  return {
    model_id: out.modelId,
    dims: out.dims,
    output: Array.from(out.vector),
    quantized: Array.from(out.quantized),
    output_hash: hex(out.outputHash),
    input_hash: hex(out.inputHash),
    flops: out.flops,
    execution_time_ms: Math.round(executionMs),
    backend,
  };
}

function threadCount(value: string): number {
  if (!/^\d+$/.test(value.trim())) throw new InvalidArgumentError('expected a whole number of threads (0 = libtorch default).');
  return Number(value.trim());
}

/** Registers `infer` on the svc-miner program. */
export function registerInferCommand(program: Command): Command {
  const cmd = new Command('infer')
    .description('run an approved model on one input and print {model_id, dims, output, quantized, output_hash, input_hash, flops, execution_time_ms, backend}')
    .requiredOption('--model <id>', 'model id, e.g. svc-embed-small@v1.0 (see `svc-miner models`)')
    .requiredOption('--input <text>', 'the task input (UTF-8 text)')
    .addOption(new Option('--threads <n>', 'CPU threads for libtorch (0 = default)').argParser(threadCount).default(0));
  // Same exit and output behaviour as the program (cli.ts maps CommanderError to exit codes).
  cmd.copyInheritedSettings(program);
  addInferenceOptions(cmd, program);
  cmd.action(reportingErrors(async (opts: { model: string; input: string; threads: number }, self: Command) => {
    const { backend, modelDir } = inferenceSettings(self);
    const addon = inferenceAddon();
    const model = addon.listModels().find((m) => m.id === opts.model);
    if (!model) {
      const known = addon.listModels().map((m) => m.id).join(', ');
      self.error(`error: unknown model ${JSON.stringify(opts.model)} (approved: ${known})`, { exitCode: 2, code: 'svc.unknownModel' });
    }
    addon.setThreads(opts.threads);
    await ensureModelFiles(modelDir, model, { progress: progressBar() });
    const loaded = await addon.loadModel(model.id, modelDir, backend);
    const started = performance.now();
    const [out] = await loaded.infer([opts.input], 1);
    const elapsed = performance.now() - started;
    process.stdout.write(`${JSON.stringify(inferReport(out!, loaded.backend, elapsed), null, 2)}\n`);
  }));
  program.addCommand(cmd);
  return cmd;
}

/** Registers the inference subcommands (`infer`, `models`) on the svc-miner program. */
export function registerInferenceCommands(program: Command): void {
  registerInferCommand(program);
  registerModelCommands(program);
}
