// The CometBFT consensus driver: the node is an ABCI 2.0 application (./application.ts) and
// CometBFT makes the blocks: p2p, mempool gossip, BFT rounds, block sync. The driver serves ABCI,
// starts the `cometbft` process of the home directory and supervises it (restarted with backoff
// when it dies), and stops it before the node closes its database. With an ABCI address given
// (--abci-addr), CometBFT is run separately and the driver only serves ABCI.
import { spawn, type ChildProcess } from 'node:child_process';
import { createWriteStream, mkdirSync, type WriteStream } from 'node:fs';
import path from 'node:path';
import type { Logger } from 'pino';
import type { ProducedBlock } from '../../native/index.js';
import type { ConsensusDriver } from '../driver.js';
import type { BlockProduction } from '../production.js';
import { startAbciServer, type AbciServer } from './abci-server.js';
import type { CometApplication } from './application.js';
import { CometClient } from './client.js';
import { cometbftBinary, cometRpc } from './home.js';
import { DriverStoppedError } from '../solo.js';

export interface CometbftDriverOptions {
  application: CometApplication;
  production: BlockProduction;
  log: Logger;
  /** CometBFT's home (config/, data/); its log goes to cometbft.log there. */
  home: string;
  /** Serve ABCI here for a CometBFT run separately; absent: a free loopback port, and the driver runs CometBFT. */
  abciAddr?: string;
  /** The cometbft binary (default: cometbftBinary()). */
  binary?: string;
}

/** Restarts of a CometBFT process that keeps dying wait longer each time, up to this. */
const MAX_RESTART_DELAY_MS = 30_000;
/** How long CometBFT gets to stop on SIGTERM before it is killed. */
const STOP_GRACE_MS = 15_000;

export class CometbftDriver implements ConsensusDriver {
  readonly kind = 'cometbft' as const;
  readonly production: BlockProduction;
  /** The CometBFT RPC of this node's CometBFT (status, peers, broadcast). */
  readonly client: CometClient;
  private readonly log: Logger;
  private server: AbciServer | undefined;
  private child: ChildProcess | undefined;
  private logFile: WriteStream | undefined;
  private restartDelayMs = 1_000;
  private restartTimer: NodeJS.Timeout | undefined;
  private stopped = false;

  constructor(private readonly opts: CometbftDriverOptions) {
    this.production = opts.production;
    this.log = opts.log.child({ module: 'cometbft' });
    const rpc = cometRpc(opts.home);
    this.client = new CometClient(rpc.url, rpc.maxBatch);
  }

  async start(): Promise<void> {
    if (this.stopped) throw new DriverStoppedError();
    const binary = this.opts.abciAddr ? undefined : (this.opts.binary ?? cometbftBinary());
    this.server = await startAbciServer(this.opts.abciAddr ?? 'tcp://127.0.0.1:0', this.opts.application.handle, this.opts.log);
    this.production.started();
    if (!binary) {
      this.log.info({ abci: this.server.address }, 'serving ABCI for a CometBFT run separately');
      return;
    }
    mkdirSync(this.opts.home, { recursive: true });
    this.logFile = createWriteStream(path.join(this.opts.home, 'cometbft.log'), { flags: 'a' });
    this.spawn(binary);
  }

  private spawn(binary: string): void {
    const args = ['start', '--home', this.opts.home, '--proxy_app', this.server!.address];
    const child = spawn(binary, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    this.child = child;
    child.stdout.pipe(this.logFile!, { end: false });
    child.stderr.pipe(this.logFile!, { end: false });
    this.log.info({ pid: child.pid, home: this.opts.home, abci: this.server!.address, rpc: this.client.url }, 'CometBFT started');
    const startedAt = Date.now();
    child.on('error', (err) => this.log.error({ err }, 'CometBFT could not be started'));
    child.on('exit', (code, signal) => {
      this.child = undefined;
      if (this.stopped) return;
      // A process that ran a while starts over with a short delay; one that keeps dying waits longer.
      if (Date.now() - startedAt > 60_000) this.restartDelayMs = 1_000;
      this.log.error({ code, signal, restartInMs: this.restartDelayMs, log: path.join(this.opts.home, 'cometbft.log') }, 'CometBFT exited; restarting it');
      this.production.failed(`CometBFT exited (${signal ?? `code ${code}`})`);
      this.restartTimer = setTimeout(() => this.spawn(binary), this.restartDelayMs);
      this.restartDelayMs = Math.min(this.restartDelayMs * 2, MAX_RESTART_DELAY_MS);
    });
  }

  /** The next block the network commits (a CometBFT validator cannot seal one on demand). */
  produceNext(): Promise<ProducedBlock> {
    if (this.stopped) return Promise.reject(new DriverStoppedError());
    return this.opts.application.nextCommit();
  }

  /** Stops CometBFT (SIGTERM, then SIGKILL after a grace period), then the ABCI server, then waits for the block in flight. */
  async stop(): Promise<void> {
    if (this.stopped) return;
    this.stopped = true;
    if (this.restartTimer) clearTimeout(this.restartTimer);
    const child = this.child;
    if (child && child.exitCode === null) {
      const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), STOP_GRACE_MS);
      await exited;
      clearTimeout(timer);
    }
    await this.server?.close();
    await this.opts.application.shutdown();
    await new Promise<void>((resolve) => (this.logFile ? this.logFile.end(resolve) : resolve()));
  }
}
