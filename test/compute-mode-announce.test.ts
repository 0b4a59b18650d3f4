// A validator's compute-mode announcement (a compute message signed by its consensus key), driven
// over the ABCI socket the way CometBFT drives it (no CometBFT running): CheckTx refuses a bad
// signature, a key that is not the validator's consensus key, an unknown validator and a malformed
// body, each with its reason; ProcessProposal refuses a block carrying a bad one; a block carrying a
// good one records the mode of a validator that did not propose it, while one signed by another
// validator's key and a replayed older one change nothing; the chain then replays to the same roots.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { sign } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { create } from '@bufbuild/protobuf';
import { sizeDelimitedDecodeStream, sizeDelimitedEncode } from '@bufbuild/protobuf/wire';
import pino from 'pino';
import { cometAppGenesis, startNode, type RunningNode } from '../src/node.js';
import { consensusAddress, readCometGenesis, readValidatorSigningKey, type ValidatorSigningKey } from '../src/consensus/cometbft/home.js';
import { readManifest, type TestnetManifest } from '../src/consensus/cometbft/testnet.js';
import { messageTx } from '../src/consensus/cometbft/block-txs.js';
import { encodeMessage } from '../src/modules/kernel/messages.js';
import { modeMessage, type ComputeModeName } from '../src/modules/compute/wire.js';
import { replayChain } from '../src/chain/replay.js';
import { RequestSchema, ResponseSchema, type Request, type Response } from '../src/consensus/cometbft/proto/tendermint/abci/types_pb.js';
import { SVC_NODE } from './support/cli-process.js';
import { devnetConfig } from './support/node-config.js';
import { rpc } from './support/json-rpc.js';
import { basePortFor } from './support/testnet.js';

const CHAIN_ID = 9000;
let dir: string;
let node: RunningNode;
let socket: net.Socket;
let responses: AsyncIterator<Response>;
let manifest: TestnetManifest;
let genesisTimeMs: number;
let keys: ValidatorSigningKey[];

async function ask<C extends NonNullable<Request['value']['case']>>(kind: C, value: object): Promise<Response['value']> {
  socket.write(sizeDelimitedEncode(RequestSchema, create(RequestSchema, { value: { case: kind, value } } as never)));
  const next = await responses.next();
  assert.equal(next.done, false, 'the app closed the connection');
  return next.value.value;
}

const time = (ms: number) => ({ seconds: BigInt(Math.floor(ms / 1000)), nanos: (ms % 1000) * 1_000_000 });
const operator = (i: number) => manifest.nodes[i]!.operator.toLowerCase() as `0x${string}`;
const hex = (b: Buffer) => `0x${b.toString('hex')}`;

/** Validator `validator`'s announcement of `mode` at `height`, signed by validator `signer`'s consensus key. */
function announcement(validator: number, signer: number, mode: ComputeModeName, height: number): Record<string, unknown> {
  const address = operator(validator);
  const message = modeMessage({ chainId: CHAIN_ID, validator: Buffer.from(address.slice(2), 'hex'), mode, height });
  return { validator: address, mode, height, publicKey: hex(keys[signer]!.publicKey), signature: hex(sign(null, message, keys[signer]!.privateKey)) };
}

const tx = (body: unknown) => messageTx(encodeMessage({ module: 'compute', kind: 'mode', body }));

/** Finalizes and commits block `height`, proposed by validator 0, carrying `txs`. */
async function block(height: number, txs: Buffer[]): Promise<void> {
  const finalized = await ask('finalizeBlock', {
    height: BigInt(height), time: time(genesisTimeMs + height * 1000), proposerAddress: consensusAddress(keys[0]!.publicKey), txs, misbehavior: [],
    hash: Buffer.alloc(32), nextValidatorsHash: Buffer.alloc(32),
  });
  assert.equal(finalized.case, 'finalizeBlock', JSON.stringify(finalized.value, (_k, v: unknown) => (typeof v === 'bigint' ? String(v) : v)));
  assert.equal((await ask('commit', {})).case, 'commit');
}

const record = (i: number) => {
  const r = node.app.compute.validatorCompute(operator(i));
  return r ? { mode: r.mode, modeSince: r.modeSince } : undefined;
};

before(async () => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'svc-mode-announce-'));
  const base = basePortFor(23);
  const init = spawnSync(process.execPath, [SVC_NODE, 'testnet', 'init', '--output', dir, '--validators', '3', '--base-port', String(base)], { encoding: 'utf8' });
  assert.equal(init.status, 0, init.stderr);
  manifest = readManifest(dir);
  keys = manifest.nodes.map((n) => readValidatorSigningKey(path.join(dir, n.cometbftHome))!);
  const home = path.join(dir, manifest.nodes[0]!.cometbftHome);
  genesisTimeMs = Date.parse((JSON.parse(readFileSync(path.join(home, 'config', 'genesis.json'), 'utf8')) as { genesis_time: string }).genesis_time);
  const abci = base + 9;
  node = await startNode(devnetConfig(path.join(dir, manifest.nodes[0]!.dataDir), { consensus: 'cometbft', cometbftHome: home, abciAddr: `tcp://127.0.0.1:${abci}` }));
  socket = net.connect(abci, '127.0.0.1');
  await new Promise<void>((resolve) => socket.once('connect', resolve));
  responses = sizeDelimitedDecodeStream(ResponseSchema, socket)[Symbol.asyncIterator]();
  assert.equal((await ask('initChain', { chainId: manifest.cometChainId, initialHeight: 1n, validators: [] })).case, 'initChain');
});

after(async () => {
  socket?.destroy();
  await node?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe('compute-mode announcements', () => {
  it('reads the validator\'s signing key from its CometBFT home', () => {
    for (const [i, k] of keys.entries()) assert.equal(hex(k.publicKey), manifest.nodes[i]!.consensusKey.toLowerCase());
  });

  it('CheckTx refuses a bad signature, another validator\'s key, an unknown validator and a malformed body, saying why; takes a good one', async () => {
    const check = async (body: unknown) => {
      const r = (await ask('checkTx', { tx: tx(body), type: 0 })).value as { code: number; log: string };
      return { code: r.code, log: r.log };
    };
    const good = announcement(1, 1, 'pow', 0);
    const forged = { ...good, signature: announcement(1, 1, 'none', 0).signature };
    const bad = await check(forged);
    assert.notEqual(bad.code, 0);
    assert.match(bad.log, new RegExp(`the Ed25519 signature of ${operator(1)}'s compute-mode announcement does not verify`));
    // Validator 2's key signs for validator 1: the signature verifies, the key is not validator 1's.
    const other = await check({ ...announcement(2, 2, 'pow', 0), validator: operator(1), signature: hex(sign(null, modeMessage({ chainId: CHAIN_ID, validator: Buffer.from(operator(1).slice(2), 'hex'), mode: 'pow', height: 0 }), keys[2]!.privateKey)) });
    assert.notEqual(other.code, 0);
    assert.match(other.log, new RegExp(`is not the consensus key of validator ${operator(1)}`));
    const stranger = `0x${'42'.repeat(20)}`;
    const unknown = await check({ ...announcement(1, 1, 'pow', 0), validator: stranger, signature: hex(sign(null, modeMessage({ chainId: CHAIN_ID, validator: Buffer.from(stranger.slice(2), 'hex'), mode: 'pow', height: 0 }), keys[1]!.privateKey)) });
    assert.notEqual(unknown.code, 0);
    assert.match(unknown.log, new RegExp(`${stranger} is not a validator with a consensus key`));
    const malformed = await check({ ...good, mode: 'quantum' });
    assert.notEqual(malformed.code, 0);
    assert.match(malformed.log, /mode: field mode is missing or malformed/);
    const future = await check(announcement(1, 1, 'pow', 5));
    assert.match(future.log, /announced at height 5, not before block 1/);
    assert.deepEqual(await check(good), { code: 0, log: '' });
    assert.equal(record(1), undefined, 'nothing recorded before a block carries it');
  });

  it('ProcessProposal refuses a block carrying a bad signature or a malformed announcement', async () => {
    const proposal = { height: 1n, time: time(genesisTimeMs + 1000), proposerAddress: consensusAddress(keys[0]!.publicKey), misbehavior: [], hash: Buffer.alloc(32), nextValidatorsHash: Buffer.alloc(32) };
    const status = async (txs: Buffer[]) => ((await ask('processProposal', { ...proposal, txs })).value as { status: number }).status;
    const good = announcement(1, 1, 'pow', 0);
    assert.equal(await status([tx({ ...good, signature: announcement(2, 2, 'pow', 0).signature })]), 2, 'a bad signature');
    assert.equal(await status([tx({ ...good, height: -1 })]), 2, 'a malformed height');
    assert.equal(await status([tx({ ...good, extra: 1 })]), 2, 'an unknown field');
    assert.equal(await status([tx(good)]), 1);
  });

  it('a block records the mode of a validator that did not propose it; another key or a replayed older one changes nothing', async () => {
    await block(1, [tx(announcement(1, 1, 'pow', 0))]);
    assert.deepEqual(record(1), { mode: 'pow', modeSince: 1 }, 'validator 1, which proposed nothing, is pow from block 1');
    const seen = await rpc<{ computeMode: string }>(node.rpcUrl, 'svc_getValidator', [operator(1)]);
    assert.equal(seen.computeMode, 'pow');

    // Signed (validly) by validator 1's key for validator 2: not validator 2's consensus key.
    const foreign = {
      ...announcement(1, 1, 'pow', 1),
      validator: operator(2),
      signature: hex(sign(null, modeMessage({ chainId: CHAIN_ID, validator: Buffer.from(operator(2).slice(2), 'hex'), mode: 'pow', height: 1 }), keys[1]!.privateKey)),
    };
    await block(2, [tx(foreign)]);
    assert.equal(record(2), undefined, 'validator 2 has no mode');

    await block(3, [tx(announcement(1, 1, 'none', 2))]);
    assert.deepEqual(record(1), { mode: 'none', modeSince: 3 });
    // The first announcement again: older than the mode recorded at block 3.
    await block(4, [tx(announcement(1, 1, 'pow', 0))]);
    assert.deepEqual(record(1), { mode: 'none', modeSince: 3 }, 'a replayed announcement is ignored');
    // One naming its own block's height (not signed before it) is ignored too.
    await block(5, [tx(announcement(1, 1, 'pow', 5))]);
    assert.deepEqual(record(1), { mode: 'none', modeSince: 3 });
    const all = await rpc<{ address: string; computeMode: string }[]>(node.rpcUrl, 'svc_getValidators');
    assert.deepEqual(
      all.map((v) => [v.address.toLowerCase(), v.computeMode]).sort(),
      [[operator(0), 'none'], [operator(1), 'none'], [operator(2), 'none']].sort(),
    );
  });

  it('replays from the block data to the same root at every height', async () => {
    const dataDir = node.config.dataDir;
    socket.destroy();
    await node.stop();
    const genesis = cometAppGenesis(readCometGenesis(path.join(dir, manifest.nodes[0]!.cometbftHome)), CHAIN_ID);
    const result = await replayChain({ from: dataDir, to: path.join(dir, 'replayed'), genesis, chainId: CHAIN_ID, log: pino({ level: 'silent' }) });
    assert.equal(result.blocks, 5);
  });
});
