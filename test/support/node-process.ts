// Runs the compiled svc-node CLI as a child process on a temp data dir, the way a user starts it.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** The CLI as compiled next to this file (dist/test/support -> dist/src/cli). */
export const CLI_PATH = fileURLToPath(new URL('../../src/cli/svc-node.js', import.meta.url));

/** How much of the node's output is kept for diagnostics. */
const LOG_TAIL_BYTES = 256 * 1024;

/** Nodes not yet disposed: killed and cleaned up if the test process exits without disposing them. */
const live = new Set<NodeProcess>();
process.once('exit', () => {
  for (const node of live) node.abandon();
});

export interface NodeProcessOptions {
  /** Data dir to use; a fresh temp dir (removed by dispose) when absent. */
  dataDir?: string;
  /** Solo block time; short so that tests wait little for inclusion. */
  blockTimeMs?: number;
  logLevel?: string;
  /** More CLI flags, e.g. ['--rpc-rate-limit', '0']. */
  extraArgs?: string[];
  env?: Record<string, string>;
  /** How long to wait for the "rpc listening" line. */
  readyTimeoutMs?: number;
  /**
   * Run the node inside a network namespace (test/support/netns.ts), listening on every interface
   * and reached at `address`: a host of its own on one machine.
   */
  netns?: { name: string; address: string };
  /** Called with every line the node writes to stdout (its pino log), for as long as it runs. */
  onLogLine?: (line: string) => void;
}

/** A running (or stopped) svc-node child process bound to one data dir. */
export class NodeProcess {
  url = '';
  /** Base URL of the explorer (its API is under /api/v1), from its "explorer listening" log line. */
  explorerUrl = '';
  /** URL of the JSON-RPC WebSocket server, from its "ws listening" log line. */
  wsUrl = '';
  private child: ChildProcess | undefined;
  private exited: Promise<void> = Promise.resolve();
  private output = '';
  private readonly ownsDataDir: boolean;
  readonly dataDir: string;

  private constructor(private readonly options: NodeProcessOptions) {
    this.ownsDataDir = options.dataDir === undefined;
    this.dataDir = options.dataDir ?? mkdtempSync(path.join(tmpdir(), 'svc-node-test-'));
    live.add(this);
  }

  /** Start a node and wait until its RPC server listens. */
  static async start(options: NodeProcessOptions = {}): Promise<NodeProcess> {
    const node = new NodeProcess(options);
    try {
      await node.launch();
    } catch (err) {
      await node.dispose();
      throw err;
    }
    return node;
  }

  /** Process id of the running child. */
  get pid(): number | undefined {
    return this.running ? this.child?.pid : undefined;
  }

  /** Whether the child is alive. */
  get running(): boolean {
    return this.child !== undefined && this.child.exitCode === null && this.child.signalCode === null;
  }

  /** The last part of the node's stdout and stderr. */
  logs(): string {
    return this.output;
  }

  /** SIGTERM and wait for a clean exit (SIGKILL after 15 s); returns the exit code or signal. */
  async stop(): Promise<number | string | null> {
    const child = this.child;
    if (!child || !this.running) return child ? (child.exitCode ?? child.signalCode) : null;
    child.kill('SIGTERM');
    const timer = setTimeout(() => child.kill('SIGKILL'), 15_000);
    await this.exited;
    clearTimeout(timer);
    return child.exitCode ?? child.signalCode;
  }

  /** SIGKILL: the process gets no chance to flush or close anything. */
  async kill(): Promise<void> {
    if (!this.child || !this.running) return;
    this.child.kill('SIGKILL');
    await this.exited;
  }

  /** Start a new process on the same data dir (after stop or kill). */
  async restart(): Promise<void> {
    if (this.running) throw new Error('restart() needs the node to be stopped first');
    await this.launch();
  }

  /** Stop the node if it runs and remove the temp data dir this helper created. */
  async dispose(): Promise<void> {
    await this.stop();
    if (this.ownsDataDir) rmSync(this.dataDir, { recursive: true, force: true });
    live.delete(this);
  }

  /** Synchronous last-resort cleanup for process exit: SIGKILL the child and remove the temp dir. */
  abandon(): void {
    if (this.running) this.child!.kill('SIGKILL');
    if (this.ownsDataDir) rmSync(this.dataDir, { recursive: true, force: true });
    live.delete(this);
  }

  private append(chunk: Buffer): void {
    this.output += chunk.toString('utf8');
    if (this.output.length > LOG_TAIL_BYTES) this.output = this.output.slice(-LOG_TAIL_BYTES);
  }

  private async launch(): Promise<void> {
    const opts = this.options;
    const args = [
      CLI_PATH,
      'start',
      '--network', 'devnet',
      '--data-dir', this.dataDir,
      '--rpc-host', '127.0.0.1',
      '--rpc-port', '0',
      // Other listeners on 0 too, so that test files running in parallel never collide on a port.
      '--ws-port', '0',
      '--explorer-port', '0',
      '--block-time-ms', String(opts.blockTimeMs ?? 250),
      '--log-level', opts.logLevel ?? 'info',
      // No proof-of-work search (mode none) unless the test's own flags ask for one: a later flag wins.
      '--pow-threads', '0',
      ...(opts.netns ? ['--rpc-host', '0.0.0.0'] : []),
      ...(opts.extraArgs ?? []),
    ];
    // `ip netns exec` enters the namespace and then execs node: the child's pid is the node's.
    const [command, argv] = opts.netns ? ['ip', ['netns', 'exec', opts.netns.name, process.execPath, ...args]] : [process.execPath, args];
    const host = opts.netns?.address ?? '127.0.0.1';
    const child = spawn(command, argv, {
      env: { ...process.env, ...opts.env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    this.child = child;
    this.output += `\n--- ${new Date().toISOString()} start ${args.slice(1).join(' ')}\n`;
    this.exited = new Promise((resolve) => child.once('exit', () => resolve()));
    let pending = '';
    let listening = false;
    const onLogLine = opts.onLogLine;
    if (onLogLine) {
      let partial = '';
      child.stdout!.on('data', (chunk: Buffer) => {
        const lines = (partial + chunk.toString('utf8')).split('\n');
        partial = lines.pop()!;
        for (const line of lines) onLogLine(line);
      });
    }
    const ready = new Promise<string>((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error(`svc-node did not report "rpc listening" within ${opts.readyTimeoutMs ?? 60_000} ms\n${this.output}`)),
        opts.readyTimeoutMs ?? 60_000,
      );
      child.stdout!.on('data', (chunk: Buffer) => {
        this.append(chunk);
        if (listening) return;
        pending += chunk.toString('utf8');
        let nl: number;
        while ((nl = pending.indexOf('\n')) >= 0) {
          const line = pending.slice(0, nl);
          pending = pending.slice(nl + 1);
          const explorerPort = listeningPortOf(line, 'explorer listening');
          if (explorerPort !== undefined) this.explorerUrl = `http://${host}:${explorerPort}`;
          const wsPort = listeningPortOf(line, 'ws listening');
          if (wsPort !== undefined) this.wsUrl = `ws://${host}:${wsPort}`;
          const url = opts.netns ? rpcUrlOf(line)?.replace(/^http:\/\/[^/:]+|^http:\/\/\[[^\]]+\]/, `http://${host}`) : rpcUrlOf(line);
          if (url) {
            listening = true;
            pending = '';
            clearTimeout(timer);
            resolve(url);
          }
        }
      });
      child.stderr!.on('data', (chunk: Buffer) => this.append(chunk));
      child.once('exit', (code, signal) => {
        clearTimeout(timer);
        reject(new Error(`svc-node exited (${code ?? signal}) before it listened\n${this.output}`));
      });
      child.once('error', (err) => {
        clearTimeout(timer);
        reject(err);
      });
    });
    try {
      this.url = await ready;
    } catch (err) {
      if (this.running) {
        child.kill('SIGKILL');
        await this.exited;
      }
      throw err;
    }
  }
}

/** The port of a pino "<server> listening" line (`msg`), if this is one. */
function listeningPortOf(line: string, msg: string): number | undefined {
  if (!line.includes(msg)) return undefined;
  try {
    const entry = JSON.parse(line) as { msg?: string; port?: number };
    if (entry.msg === msg && typeof entry.port === 'number') return entry.port;
  } catch {
    // Not a JSON log line.
  }
  return undefined;
}

/** The url of a pino "rpc listening" line, if this is one. */
function rpcUrlOf(line: string): string | undefined {
  if (!line.includes('rpc listening')) return undefined;
  try {
    const entry = JSON.parse(line) as { msg?: string; url?: string };
    if (entry.msg === 'rpc listening' && typeof entry.url === 'string') return entry.url;
  } catch {
    // Not a JSON log line (e.g. the banner); keep reading.
  }
  return undefined;
}
