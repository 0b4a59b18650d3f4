// Native errors cross N-API with a stable code: the core raises `[CODE] text`, the loader turns it
// into a NativeError whose code TypeScript switches on (the pruned-state read becomes -32002).
import { describe, it, after, before } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, readdirSync, rmSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { devAccounts, devGenesis } from '../src/chain/genesis.js';
import { parseCodedError } from '../src/native/coded-error.js';
import { NativeError, isLaneBusy, translateNativeError } from '../src/native/index.js';
import { rpc as rpcParams } from '../src/params.js';
import { HistoricalStateUnavailableError } from '../src/rpc/errors.js';
import { readState, readStateAsync } from '../src/rpc/historical-state.js';
import { repoRoot } from './support/repo.js';

const { core } = await import('../src/native/index.js');

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const full = path.join(dir, name);
    return statSync(full).isDirectory() ? sources(full) : name.endsWith('.ts') ? [full] : [];
  });
}

describe('coded native errors', () => {
  it('parses [CODE] text and leaves other errors alone', () => {
    assert.deepEqual(parseCodedError(new Error('[STATE_UNAVAILABLE] historical state not available')), { code: 'STATE_UNAVAILABLE', message: 'historical state not available' });
    assert.equal(parseCodedError(new Error('nonce too low: address 0x…')), undefined);
    assert.equal(parseCodedError('[NOT_AN_ERROR] x'), undefined);
    const plain = new Error('rlp: expected input list');
    assert.equal(translateNativeError(plain), plain);
    const busy = Object.assign(new Error('the exec lane is full (64 waiting)'), { code: 'QueueFull' });
    assert.equal(translateNativeError(busy), busy);
    assert.equal(isLaneBusy(translateNativeError(busy)), true);
  });

  describe('a read of pruned state', () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'svc-native-errors-'));
    const chain = core.Chain.open(dir, devGenesis('devnet'), { rpcGasCap: rpcParams.gasCap, stateHistory: 2 });
    const who = devAccounts()[0]!.addressBytes;
    before(async () => {
      for (let i = 1; i <= 4; i++) {
        await chain.produceBlock({ timestampMs: (1_900_000_000 + i) * 1000, coinbase: who, extraData: Buffer.alloc(0), gasLimit: 30_000_000, txs: [], senders: [] });
      }
    });
    after(() => {
      chain.close();
      rmSync(dir, { recursive: true, force: true });
    });

    it('throws NativeError STATE_UNAVAILABLE with the plain text, from sync and async reads', async () => {
      assert.equal(chain.head().number, 4);
      assert.ok(chain.getAccount(who, 4).balance > 0n);
      for (const read of [() => chain.getAccount(who, 1), () => chain.getAccounts([who], 0), () => chain.getCode(who, 1), () => chain.getStorageAt(who, Buffer.alloc(32), 1)]) {
        assert.throws(read, (err: unknown) => err instanceof NativeError && err.code === 'STATE_UNAVAILABLE' && err.message === 'historical state not available');
      }
      await assert.rejects(chain.call({ to: who }, 1), (err: unknown) => err instanceof NativeError && err.code === 'STATE_UNAVAILABLE');
      await assert.rejects(chain.estimateGas({ from: who, to: who }, 1), (err: unknown) => err instanceof NativeError && err.code === 'STATE_UNAVAILABLE');
    });

    it('is answered -32002 by the JSON-RPC readers, other errors pass through', async () => {
      assert.throws(() => readState(1, () => chain.getAccount(who, 1)), (err: unknown) => err instanceof HistoricalStateUnavailableError && err.code === -32002 && err.message === 'historical state not available for block 1');
      await assert.rejects(readStateAsync(1, () => chain.call({ to: who }, 1)), HistoricalStateUnavailableError);
      assert.throws(() => readState(9, () => chain.getAccount(who, 9)), (err: unknown) => !(err instanceof HistoricalStateUnavailableError) && /header not found/.test((err as Error).message));
    });
  });

  it('no TypeScript in src/ matches an error by its message text', () => {
    const src = path.join(repoRoot(), 'src');
    const hits = sources(src).flatMap((f) =>
      readFileSync(f, 'utf8')
        .split('\n')
        .map((line, i) => ({ line, at: `${path.relative(src, f)}:${i + 1}` }))
        .filter(({ line }) => /\.message\.(includes|startsWith|endsWith|match)\(|\.test\(\(?\w+( as Error\))?\.message\)|\.message ===? '(?!string')/.test(line))
        .map(({ at, line }) => `${at}: ${line.trim()}`),
    );
    assert.deepEqual(hits, []);
  });
});
