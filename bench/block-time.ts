// bench:block-time — runs svc-node (the CLI, as a user starts it) at a sub-second --block-time-ms for
// a while and prints how the chain's clock kept to the wall clock: the head's millisecond time
// against this process's clock (sampled every 100 ms), svc_getNetworkStats' avgBlockTimeMs against
// the target, and how long each whole epoch lasted by its blocks' times against svc_getEpoch's
// durationMs. The targets (the head within 1 s of the wall clock, avgBlockTimeMs and epochs within
// 10%) are printed beside the figures; the exit code is 1 when one is missed.
import { parseArgs } from 'node:util';
import { machineLine } from './support/machine.js';
import { rpc } from '../test/support/json-rpc.js';
import { NodeProcess } from '../test/support/node-process.js';

const USAGE = `usage: node dist/bench/block-time.js [options]   (npm run bench:block-time -- [options])
  --block-time-ms <ms>  block time (default 500)
  --seconds <s>         how long the node runs (default 120)
  --help`;

const { values } = parseArgs({ options: { 'block-time-ms': { type: 'string' }, seconds: { type: 'string' }, help: { type: 'boolean' } } });
if (values.help) {
  console.log(USAGE);
  process.exit(0);
}
const blockTimeMs = Number(values['block-time-ms'] ?? 500);
const seconds = Number(values.seconds ?? 120);
if (!Number.isInteger(blockTimeMs) || blockTimeMs < 50 || !(seconds > 0)) {
  console.error(USAGE);
  process.exit(2);
}

type RpcBlock = { number: string; timestamp: string; timestampMs: string };
const n = (hex: string): number => Number(BigInt(hex));
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const progress = (line: string) => process.stderr.write(`[bench:block-time] ${line}\n`);

const node = await NodeProcess.start({ blockTimeMs, readyTimeoutMs: 120_000 });
try {
  progress(`node at --block-time-ms ${blockTimeMs}, running ${seconds} s`);
  const lags: number[] = [];
  const until = Date.now() + seconds * 1000;
  while (Date.now() < until) {
    const head = await rpc<RpcBlock>(node.url, 'eth_getBlockByNumber', ['latest', false]);
    if (n(head.number) > 0) lags.push(Date.now() - n(head.timestampMs));
    await sleep(100);
  }
  const wallAtEnd = Date.now();
  const head = await rpc<RpcBlock>(node.url, 'eth_getBlockByNumber', ['latest', false]);
  const lastLagMs = wallAtEnd - n(head.timestampMs);
  const stats = await rpc<{ avgBlockTimeMs: number }>(node.url, 'svc_getNetworkStats');
  const epoch = await rpc<{ number: string; durationMs: string; lengthBlocks: number }>(node.url, 'svc_getEpoch');
  const durationMs = n(epoch.durationMs);
  const timeOf = async (height: number) => n((await rpc<RpcBlock>(node.url, 'eth_getBlockByNumber', [`0x${height.toString(16)}`, false])).timestampMs);
  // Whole epochs only: epoch 0 starts at genesis (the network's fixed date) and the current one is not over.
  const lasted: number[] = [];
  for (let e = 1; e < n(epoch.number); e++) lasted.push((await timeOf((e + 1) * epoch.lengthBlocks)) - (await timeOf(e * epoch.lengthBlocks)));
  const worstEpochOff = Math.max(...lasted.map((d) => Math.abs(d - durationMs) / durationMs));
  const meanEpoch = lasted.reduce((s, d) => s + d, 0) / lasted.length;
  const sorted = [...lags].sort((a, b) => a - b);
  const checks: [string, string, string, boolean][] = [
    ['head behind the wall clock at the end', `${lastLagMs} ms`, '< 1000 ms', Math.abs(lastLagMs) < 1000],
    ['head behind the wall clock, all samples', `min ${sorted[0]} / p50 ${sorted[Math.floor(sorted.length / 2)]} / max ${sorted[sorted.length - 1]} ms (${lags.length} samples)`, '< 1000 ms', sorted[sorted.length - 1]! < 1000 && sorted[0]! > -1000],
    ['avgBlockTimeMs (svc_getNetworkStats)', `${stats.avgBlockTimeMs} ms`, `${blockTimeMs} ± 10%`, Math.abs(stats.avgBlockTimeMs - blockTimeMs) <= blockTimeMs * 0.1],
    [
      `whole epochs (${lasted.length}) vs durationMs ${durationMs}`,
      `mean ${meanEpoch.toFixed(0)} ms, min ${Math.min(...lasted)}, max ${Math.max(...lasted)} (worst ${(worstEpochOff * 100).toFixed(1)}% off)`,
      '± 10% each',
      lasted.length > 0 && worstEpochOff <= 0.1,
    ],
  ];
  console.log(`# bench:block-time: ${seconds} s at --block-time-ms ${blockTimeMs}, head ${n(head.number)}`);
  console.log(`# ${machineLine()}`);
  console.log('| check | measured | target | met |');
  console.log('|---|---|---|---|');
  for (const [what, measured, target, met] of checks) console.log(`| ${what} | ${measured} | ${target} | ${met ? 'yes' : 'NO'} |`);
  process.exitCode = checks.every((c) => c[3]) ? 0 : 1;
} finally {
  await node.dispose();
}
