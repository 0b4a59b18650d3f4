// The explorer's index lag as a client sees it, sampled from a process of its own (so that the
// bench's own work never delays a sample): every `interval` ms, the chain head from JSON-RPC
// (eth_blockNumber) and the explorer's indexed height (/health/ready), asked at the same moment.
// One JSON line per sample on stdout: {"at": ms since start, "head": n, "indexed": n, "lag": n,
// "internalLag": n (the internal transactions' index, when the explorer reports it)}
// or {"at": ms, "error": "..."}. Runs until its stdin closes.
//
//   node dist/bench/support/lag-sampler.js <json-rpc url> <explorer api url> [interval ms]
import process from 'node:process';

const [rpcUrl, apiUrl, intervalArg] = process.argv.slice(2);
if (!rpcUrl || !apiUrl) {
  process.stderr.write('usage: lag-sampler <json-rpc url> <explorer api url> [interval ms]\n');
  process.exit(2);
}
const interval = Number(intervalArg ?? 100);
const started = performance.now();
let running = true;
process.stdin.on('end', () => (running = false));
process.stdin.on('close', () => (running = false));
process.stdin.resume();

async function head(): Promise<number> {
  const res = await fetch(rpcUrl!, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: '{"jsonrpc":"2.0","id":1,"method":"eth_blockNumber","params":[]}',
  });
  return Number(((await res.json()) as { result: string }).result);
}

async function indexed(): Promise<{ indexed: number; internal?: number }> {
  const body = (await (await fetch(`${apiUrl}/health/ready`)).json()) as { data?: { indexed: number; internalIndexed?: number }; error?: string };
  if (typeof body.data?.indexed === 'number') return { indexed: body.data.indexed, ...(typeof body.data.internalIndexed === 'number' ? { internal: body.data.internalIndexed } : {}) };
  // 503 when the index is more than 2 blocks behind: "the index is N blocks behind the head (block H)".
  const m = /the index is (\d+) blocks behind the head \(block (\d+)\)/.exec(body.error ?? '');
  if (m) return { indexed: Number(m[2]) - Number(m[1]) };
  throw new Error(`no indexed height in ${JSON.stringify(body).slice(0, 200)}`);
}

// A sample starts every `interval` ms whether or not the previous one has been answered (the
// explorer answers from a busy event loop): each records the head and the indexed height it read.
const inFlight = new Set<Promise<void>>();
const sample = async (): Promise<void> => {
  const at = Math.round(performance.now() - started);
  try {
    const [h, i] = await Promise.all([head(), indexed()]);
    const internal = i.internal === undefined ? {} : { internalLag: Math.max(0, h - i.internal) };
    process.stdout.write(`${JSON.stringify({ at, head: h, indexed: i.indexed, lag: Math.max(0, h - i.indexed), ...internal })}\n`);
  } catch (err) {
    process.stdout.write(`${JSON.stringify({ at, error: (err as Error).message })}\n`);
  }
};
const timer = setInterval(() => {
  if (!running) return;
  const p = sample().finally(() => inFlight.delete(p));
  inFlight.add(p);
}, interval);
await new Promise<void>((resolve) => {
  const check = setInterval(() => {
    if (running) return;
    clearInterval(check);
    clearInterval(timer);
    resolve();
  }, 20);
});
await Promise.all(inFlight);
