// CometBFT's validator updates from the ABCI application, driven over its socket the way CometBFT
// drives it (no CometBFT running): a validator banned by duplicate-vote evidence leaves the set by
// the updates of the very block that carried the evidence (power 0), once; one jailed for downtime
// likewise, its uptime still showing its misses; the epoch's set otherwise stays.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { create } from '@bufbuild/protobuf';
import { sizeDelimitedDecodeStream, sizeDelimitedEncode } from '@bufbuild/protobuf/wire';
import { startNode, type RunningNode } from '../src/node.js';
import { consensusAddress } from '../src/consensus/cometbft/home.js';
import { readManifest, type TestnetManifest } from '../src/consensus/cometbft/testnet.js';
import { MisbehaviorType, RequestSchema, ResponseSchema, type Request, type Response } from '../src/consensus/cometbft/proto/tendermint/abci/types_pb.js';
import { BlockIDFlag } from '../src/consensus/cometbft/proto/tendermint/types/validator_pb.js';
import { SVC_NODE } from './support/cli-process.js';
import { devnetConfig } from './support/node-config.js';
import { basePortFor } from './support/testnet.js';

let dir: string;
let node: RunningNode;
let socket: net.Socket;
let responses: AsyncIterator<Response>;
let manifest: TestnetManifest;
let genesisTimeMs: number;

async function ask<C extends NonNullable<Request['value']['case']>>(kind: C, value: object): Promise<Response['value']> {
  socket.write(sizeDelimitedEncode(RequestSchema, create(RequestSchema, { value: { case: kind, value } } as never)));
  const next = await responses.next();
  assert.equal(next.done, false, 'the app closed the connection');
  return next.value.value;
}

const time = (ms: number) => ({ seconds: BigInt(Math.floor(ms / 1000)), nanos: (ms % 1000) * 1_000_000 });
const keyOf = (i: number): Buffer => Buffer.from(manifest.nodes[i]!.consensusKey.slice(2), 'hex');

type Update = { pubKey?: { sum: { value: Uint8Array } }; power: bigint };

/** Finalizes and commits block `height` with `misbehavior`; its validator updates as `key hex: power`. */
async function block(height: number, misbehavior: object[] = [], decidedLastCommit?: object): Promise<string[]> {
  const finalized = await ask('finalizeBlock', {
    height: BigInt(height), time: time(genesisTimeMs + height * 1000), proposerAddress: consensusAddress(keyOf(0)), txs: [], misbehavior,
    hash: Buffer.alloc(32), nextValidatorsHash: Buffer.alloc(32), ...(decidedLastCommit ? { decidedLastCommit } : {}),
  });
  assert.equal(finalized.case, 'finalizeBlock', JSON.stringify(finalized.value, (_k, v: unknown) => (typeof v === 'bigint' ? String(v) : v)));
  assert.equal((await ask('commit', {})).case, 'commit');
  return (finalized.value as { validatorUpdates: Update[] }).validatorUpdates.map((u) => `${Buffer.from(u.pubKey!.sum.value).toString('hex')}:${u.power}`);
}

before(async () => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'svc-abci-updates-'));
  const base = basePortFor(17);
  const init = spawnSync(process.execPath, [SVC_NODE, 'testnet', 'init', '--output', dir, '--validators', '3', '--base-port', String(base)], { encoding: 'utf8' });
  assert.equal(init.status, 0, init.stderr);
  manifest = readManifest(dir);
  const home = path.join(dir, manifest.nodes[0]!.cometbftHome);
  genesisTimeMs = Date.parse((JSON.parse(readFileSync(path.join(home, 'config', 'genesis.json'), 'utf8')) as { genesis_time: string }).genesis_time);
  const abci = base + 9;
  node = await startNode(devnetConfig(path.join(dir, manifest.nodes[0]!.dataDir), { consensus: 'cometbft', cometbftHome: home, abciAddr: `tcp://127.0.0.1:${abci}` }));
  socket = net.connect(abci, '127.0.0.1');
  await new Promise<void>((resolve) => socket.once('connect', resolve));
  responses = sizeDelimitedDecodeStream(ResponseSchema, socket)[Symbol.asyncIterator]();
});

after(async () => {
  socket?.destroy();
  await node?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe('validator updates', () => {
  it('a validator banned for double signing leaves CometBFT\'s set by the updates of the block that carried the evidence, once', async () => {
    const init = await ask('initChain', { chainId: manifest.cometChainId, initialHeight: 1n, validators: [] });
    assert.equal((init.value as { validators: unknown[] }).validators.length, 3);
    assert.deepEqual(await block(1), [], 'no change within the epoch');
    const banned = keyOf(2);
    const evidence = {
      type: MisbehaviorType.DUPLICATE_VOTE,
      validator: { address: consensusAddress(banned), power: 1000n },
      height: 1n,
      time: time(genesisTimeMs + 1000),
      totalVotingPower: 3000n,
    };
    assert.deepEqual(await block(2, [evidence]), [`${banned.toString('hex')}:0`]);
    const operator = manifest.nodes[2]!.operator.toLowerCase() as `0x${string}`;
    assert.equal(node.app.staking.state.validator(operator)!.status, 'jailed');
    assert.deepEqual(await block(3), [], 'removed once');
  });

  it('a validator jailed for downtime leaves CometBFT\'s set by the updates of the block that jailed it, and its uptime shows its misses', async () => {
    const down = keyOf(1);
    const operator = manifest.nodes[1]!.operator.toLowerCase() as `0x${string}`;
    // Validator 0 signs every block, validator 1 none: past a full window (100 blocks, at most 50 missed) it is jailed.
    const commit = {
      round: 0,
      votes: [
        { validator: { address: consensusAddress(keyOf(0)), power: 1000n }, blockIdFlag: BlockIDFlag.BLOCK_ID_FLAG_COMMIT },
        { validator: { address: consensusAddress(down), power: 1000n }, blockIdFlag: BlockIDFlag.BLOCK_ID_FLAG_ABSENT },
      ],
    };
    let height = 4;
    let updates: string[] = [];
    for (; height < 130 && node.app.staking.state.validator(operator)!.status === 'active'; height++) {
      updates = await block(height, [], commit);
      if (node.app.staking.state.validator(operator)!.status === 'active') assert.deepEqual(updates, [], `block ${height}`);
    }
    const v = node.app.staking.state.validator(operator)!;
    assert.equal(v.status, 'jailed', `jailed by block ${height - 1}`);
    assert.deepEqual(updates, [`${down.toString('hex')}:0`]);
    assert.ok(v.uptimeBps < 5_000 && v.missedInWindow > 50, `uptime ${v.uptimeBps} bps, ${v.missedInWindow} missed in the window`);
    assert.deepEqual(await block(height, [], commit), [], 'removed once');
  });
});
