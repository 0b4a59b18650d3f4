// `svc-miner models`: the approved models with size, memory, tier, whether this machine's tier may
// load them and whether they are cached; `--download <id...>` fetches models ahead of use.
import { Command, Option } from 'commander';
import { inferenceAddon, type HardwareInfo, type ModelInfo } from '../native/inference.js';
import { cacheState, ensureModelFiles, modelFolder, type CacheState } from '../inference/model-store.js';
import { progressBar } from '../inference/progress.js';
import { addInferenceOptions, inferenceSettings, reportingErrors } from './inference-options.js';

export interface ModelRow {
  id: string;
  task: string;
  architecture: string;
  dims: number;
  size_mb: number;
  min_memory_mb: number;
  tier: string;
  loadable: boolean;
  cached: CacheState;
  path: string;
}

export async function modelRows(models: ModelInfo[], hardware: HardwareInfo, modelDir: string): Promise<ModelRow[]> {
  return Promise.all(
    models.map(async (m) => ({
      id: m.id,
      task: m.task,
      architecture: `${m.layers} layers, ${m.hidden} hidden`,
      dims: m.dims,
      size_mb: m.sizeMb,
      min_memory_mb: m.minMemoryMb,
      tier: m.tier,
      loadable: hardware.loadableModels.includes(m.id),
      cached: await cacheState(modelDir, m),
      path: modelFolder(modelDir, m),
    })),
  );
}

function table(rows: ModelRow[], hardware: HardwareInfo): string {
  const head = ['MODEL', 'TASK', 'ARCHITECTURE', 'DIMS', 'SIZE', 'MIN MEMORY', 'TIER', 'LOADABLE', 'CACHED'];
  const body = rows.map((r) => [
    r.id, r.task, r.architecture, String(r.dims), `~${r.size_mb} MB`, `${r.min_memory_mb} MB`, r.tier,
    r.loadable ? 'yes' : 'no', r.cached,
  ]);
  const widths = head.map((h, i) => Math.max(h.length, ...body.map((b) => b[i]!.length)));
  const line = (cells: string[]) => cells.map((c, i) => c.padEnd(widths[i]!)).join('  ').trimEnd();
  const gpu = hardware.gpuName ? `, ${hardware.gpuName}${hardware.gpuMemoryMb ? ` ${hardware.gpuMemoryMb} MB` : ''}` : '';
  return [
    `this machine: backend ${hardware.backend}${gpu}, ${hardware.systemMemoryMb} MB RAM, tier ${hardware.tier}`,
    line(head),
    ...body.map(line),
  ].join('\n');
}

/** Registers `models` on the svc-miner program. */
export function registerModelCommands(program: Command): Command {
  const cmd = new Command('models')
    .description('list the approved models: size, memory, GPU tier, whether this machine may load them, whether cached')
    .addOption(new Option('--download <ids...>', 'download (and verify) these models into the model directory'))
    .addOption(new Option('--json', 'print JSON instead of a table'));
  // Same exit and output behaviour as the program (cli.ts maps CommanderError to exit codes).
  cmd.copyInheritedSettings(program);
  addInferenceOptions(cmd, program);
  cmd.action(reportingErrors(async (opts: { download?: string[]; json?: boolean }, self: Command) => {
    const { backend, modelDir } = inferenceSettings(self);
    const addon = inferenceAddon();
    const models = addon.listModels();
    for (const id of opts.download ?? []) {
      const model = models.find((m) => m.id === id);
      if (!model) throw new Error(`unknown model ${JSON.stringify(id)} (approved: ${models.map((m) => m.id).join(', ')})`);
      await ensureModelFiles(modelDir, model, { progress: progressBar() });
    }
    const maxMemory = Number(self.optsWithGlobals().maxMemory ?? 0);
    const hardware = addon.detectHardware(backend, maxMemory > 0 ? maxMemory : undefined);
    const rows = await modelRows(models, hardware, modelDir);
    process.stdout.write(opts.json ? `${JSON.stringify({ hardware, models: rows }, null, 2)}\n` : `${table(rows, hardware)}\n`);
  }));
  program.addCommand(cmd);
  return cmd;
}
