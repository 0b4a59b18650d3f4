// A TCP proxy that delays what passes through it, both ways, by a latency with jitter (each chunk
// is held latency ± jitter but never overtakes the one before it, as on a real link), and can be
// cut (open connections reset, new ones refused) and healed: the links of a network of hosts in
// namespaces (test/support/netns.ts), where this kernel has no netem.
import net from 'node:net';

export interface DelayProxyOptions {
  listenHost: string;
  targetHost: string;
  targetPort: number;
  latencyMs: number;
  jitterMs: number;
}

export class DelayProxy {
  private server: net.Server | undefined;
  private readonly sockets = new Set<net.Socket>();
  private cut = false;
  port = 0;

  constructor(private readonly o: DelayProxyOptions) {}

  async start(): Promise<void> {
    this.server = net.createServer((client) => this.accept(client));
    await new Promise<void>((resolve, reject) => {
      this.server!.once('error', reject);
      this.server!.listen(0, this.o.listenHost, () => resolve());
    });
    this.port = (this.server.address() as net.AddressInfo).port;
  }

  /** Resets every connection and refuses new ones until heal(). */
  partition(): void {
    this.cut = true;
    for (const s of this.sockets) s.resetAndDestroy();
    this.sockets.clear();
  }

  heal(): void {
    this.cut = false;
  }

  async close(): Promise<void> {
    this.partition();
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }

  private accept(client: net.Socket): void {
    if (this.cut) {
      client.resetAndDestroy();
      return;
    }
    const upstream = net.connect(this.o.targetPort, this.o.targetHost);
    for (const s of [client, upstream]) {
      this.sockets.add(s);
      s.setNoDelay(true);
      s.on('error', () => undefined);
      s.on('close', () => {
        this.sockets.delete(s);
        client.destroy();
        upstream.destroy();
      });
    }
    this.pipe(client, upstream);
    this.pipe(upstream, client);
  }

  /** Copies from → to, each chunk after the link's delay and never before the chunk ahead of it. */
  private pipe(from: net.Socket, to: net.Socket): void {
    let lastDue = 0;
    from.on('data', (chunk: Buffer) => {
      const delay = this.o.latencyMs + (Math.random() * 2 - 1) * this.o.jitterMs;
      const due = Math.max(Date.now() + delay, lastDue);
      lastDue = due;
      setTimeout(() => {
        if (!to.destroyed) to.write(chunk);
      }, due - Date.now());
    });
    from.on('end', () => setTimeout(() => to.end(), Math.max(0, lastDue - Date.now())));
  }
}
