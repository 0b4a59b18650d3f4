// The p2p links of a network on one machine with latency: one delaying TCP proxy per directed link
// (test/support/delay-proxy.ts), in a process of its own so that the bench's event loop and CPU
// figures do not carry the proxies' work. Run as a child: argv[2] is JSON, a list of
// { targetPort, latencyMs, jitterMs }; it prints the list of the proxies' ports (JSON, one line)
// and serves until its stdin closes.
import { DelayProxy } from '../../test/support/delay-proxy.js';

interface Link {
  targetPort: number;
  latencyMs: number;
  jitterMs: number;
}

const links = JSON.parse(process.argv[2] ?? '[]') as Link[];
const proxies = links.map((l) => new DelayProxy({ listenHost: '127.0.0.1', targetHost: '127.0.0.1', targetPort: l.targetPort, latencyMs: l.latencyMs, jitterMs: l.jitterMs }));
for (const p of proxies) await p.start();
process.stdout.write(`${JSON.stringify(proxies.map((p) => p.port))}\n`);
process.stdin.resume();
process.stdin.on('end', () => {
  void Promise.all(proxies.map((p) => p.close())).then(() => process.exit(0));
});
