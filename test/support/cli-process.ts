// The compiled CLIs spawned as users run them, with the parent's SVC_* variables left out so a
// developer's environment cannot change what a test sees.
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { fileURLToPath } from 'node:url';

export const SVC_NODE = fileURLToPath(new URL('../../src/cli/svc-node.js', import.meta.url));
export const SVC_MINER = fileURLToPath(new URL('../../src/miner/cli.js', import.meta.url));

/** The parent's environment without SVC_* variables, plus `extra`. */
export function cleanEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) if (!k.startsWith('SVC_')) env[k] = v;
  return { ...env, ...extra };
}

/** A spawned CLI: its process, what it printed so far, and its exit code once it ends. */
export interface CliProcess {
  child: ChildProcessWithoutNullStreams;
  stdout(): string;
  stderr(): string;
  exit: Promise<number | null>;
}

/** Spawns `script` with `args` on this Node, in a clean environment plus `env`. */
export function spawnCli(script: string, args: string[], env: Record<string, string> = {}, cwd?: string): CliProcess {
  const child = spawn(process.execPath, [script, ...args], { env: cleanEnv(env), cwd: cwd ?? process.cwd() });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  const exit = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
  return { child, stdout: () => stdout, stderr: () => stderr, exit };
}
