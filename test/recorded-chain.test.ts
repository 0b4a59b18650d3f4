// The recorded chain (test/fixtures/recorded-chain/, made by test/support/record-chain.ts): a devnet
// chain on which every module acted, replayed with the current code as `svc-node replay` replays, must
// reach the recorded hash and state root at every height. A change that alters any module's records,
// gas, events or reward arithmetic shows here as the first block whose root differs.
import { describe, it, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pino } from 'pino';
import { core } from '../src/native/index.js';
import { replayChain } from '../src/chain/replay.js';
import { rpc as rpcParams } from '../src/params.js';
import { ARCHIVE, CHAIN, COMPUTE, EXPECTED, fixtureDir, GOVERNANCE, RENT, recordedGenesis, STAKING, unpack, type Expected } from './support/recorded-chain.js';

const hex = (b: Buffer): string => `0x${b.toString('hex')}`;

describe('the recorded chain', () => {
  const work = mkdtempSync(path.join(os.tmpdir(), 'svc-recorded-chain-'));
  after(() => rmSync(work, { recursive: true, force: true }));

  it('replays to the recorded hash and state root at every height', async () => {
    const expected = JSON.parse(readFileSync(path.join(fixtureDir(), EXPECTED), 'utf8')) as Expected;
    const from = path.join(work, 'recorded');
    unpack(readFileSync(path.join(fixtureDir(), ARCHIVE)), from);
    const genesis = recordedGenesis(expected.bridge);
    const last = expected.blocks.length;
    assert.ok(last > 0);

    // The stored blocks are the recorded ones.
    const source = core.Chain.open(from, genesis.spec, { rpcGasCap: rpcParams.gasCap, stateHistory: 0 });
    try {
      assert.equal(source.head().number, last, 'the archive holds the recorded blocks');
      for (const b of expected.blocks) {
        const head = source.getBlockInputs(b.height)!.head;
        assert.deepEqual({ height: b.height, hash: hex(head.hash), stateRoot: hex(head.stateRoot) }, b, `stored block ${b.height}`);
      }
    } finally {
      source.close();
    }

    // Replayed with the current code: replayChain refuses the first block whose hash or root differs;
    // each root is also compared with the recorded one.
    const roots: string[] = [];
    const to = path.join(work, 'replayed');
    const result = await replayChain({
      from,
      to,
      genesis,
      chainId: CHAIN,
      stakingParams: STAKING,
      computeParams: COMPUTE,
      governanceParams: GOVERNANCE,
      rentParams: RENT,
      log: pino({ level: 'silent' }),
      onBlock: (height, root) => (roots[height] = hex(root)),
    });
    assert.equal(result.blocks, last);
    for (const b of expected.blocks) assert.equal(roots[b.height], b.stateRoot, `state root at height ${b.height}`);
    const head = expected.blocks[last - 1]!;
    assert.deepEqual({ height: result.head.number, hash: hex(result.head.hash), stateRoot: hex(result.head.stateRoot) }, head);
  });
});
