// The bundler's pool and reputation rules at their edges: replacement by exactly +10% on both fees,
// ERC-7562's pool shares for unstaked senders, factories and paymasters, the pool's size limit, and
// reputation's throttle and ban thresholds with the hourly decay, and the same operation sent twice.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Address, Hex } from 'viem';
import { UserOperationPool, type PooledOperation } from '../src/aa/pool.js';
import { Reputation } from '../src/aa/reputation.js';
import { ENTRY_POINT_V07 } from '../src/chain/account-abstraction.js';
import { bundler as params } from '../src/params.js';
import type { EntryPointOperation } from '../src/aa/user-operation.js';

const unstaked = { stake: 0n, unstakeDelaySec: 0n };
const staked = { stake: params.minStake, unstakeDelaySec: BigInt(params.minUnstakeDelaySeconds) };
let counter = 0;

function pooled(sender: string, nonce: bigint, fees: { maxFeePerGas: bigint; maxPriorityFeePerGas: bigint }, extra: Partial<PooledOperation> = {}): PooledOperation {
  const operation: EntryPointOperation = {
    version: '0.7',
    entryPoint: ENTRY_POINT_V07 as Address,
    op: { sender: sender as Address, nonce, callData: '0x', callGasLimit: 1n, verificationGasLimit: 1n, preVerificationGas: 1n, signature: '0x', ...fees },
  };
  counter += 1;
  return {
    hash: `0x${counter.toString(16).padStart(64, '0')}` as Hex,
    operation,
    validAfter: 0n,
    validUntil: 1n << 47n,
    factory: undefined,
    paymaster: undefined,
    senderStake: unstaked,
    factoryStake: unstaked,
    paymasterStake: unstaked,
    arrivedAt: counter,
    source: 'rpc',
    validatedAt: 1,
    ...extra,
  };
}

const sender = (n: number) => `0x${n.toString(16).padStart(40, '0')}`;

describe('user-operation pool', () => {
  it('replaces only when both fees rise by at least 10%; orders by priority fee, then arrival', () => {
    const pool = new UserOperationPool();
    const first = pooled(sender(1), 0n, { maxFeePerGas: 1000n, maxPriorityFeePerGas: 100n });
    pool.add(first, pool.precheck(first.operation));
    for (const fees of [
      { maxFeePerGas: 1099n, maxPriorityFeePerGas: 110n },
      { maxFeePerGas: 1100n, maxPriorityFeePerGas: 109n },
      { maxFeePerGas: 5000n, maxPriorityFeePerGas: 100n },
    ]) {
      const low = pooled(sender(1), 0n, fees);
      assert.throws(() => pool.precheck(low.operation), (err: Error & { code?: number }) => err.code === -32602 && /replacement underpriced.*>= 110 .*>= 1100/.test(err.message));
    }
    const exact = pooled(sender(1), 0n, { maxFeePerGas: 1100n, maxPriorityFeePerGas: 110n });
    const replaced = pool.precheck(exact.operation);
    assert.equal(replaced, first);
    pool.add(exact, replaced);
    assert.equal(pool.size, 1);
    assert.equal(pool.get(first.hash), undefined);
    assert.equal(pool.get(exact.hash), exact);
    // Another nonce is not a replacement.
    const next = pooled(sender(1), 1n, { maxFeePerGas: 1n, maxPriorityFeePerGas: 1n });
    assert.equal(pool.precheck(next.operation), undefined);
    pool.add(next, undefined);
    const rich = pooled(sender(2), 0n, { maxFeePerGas: 1000n, maxPriorityFeePerGas: 500n });
    const tie = pooled(sender(3), 0n, { maxFeePerGas: 1000n, maxPriorityFeePerGas: 110n });
    pool.add(rich, undefined);
    pool.add(tie, undefined);
    assert.deepEqual(pool.ordered().map((p) => p.hash), [rich.hash, exact.hash, tie.hash, next.hash]);
  });

  it('refuses the identical operation while it is pooled: -32602 "Already known", before and after its simulation', () => {
    const pool = new UserOperationPool();
    const p = pooled(sender(5), 0n, { maxFeePerGas: 1000n, maxPriorityFeePerGas: 100n });
    assert.equal(pool.precheck(p.operation, p.hash), undefined);
    pool.add(p, undefined);
    const known = (err: Error & { code?: number }) => err.code === -32602 && err.message.startsWith(`Already known: user operation ${p.hash}`);
    assert.throws(() => pool.refuseIfKnown(p.hash), known);
    assert.throws(() => pool.precheck(p.operation, p.hash), known);
    assert.equal(pool.size, 1);
    pool.remove(p.hash);
    assert.doesNotThrow(() => pool.refuseIfKnown(p.hash));
  });

  it("holds ERC-7562's shares: 4 operations of an unstaked sender, 10 naming an unstaked factory or paymaster; staked entities are not limited", () => {
    const pool = new UserOperationPool();
    const fees = { maxFeePerGas: 10n, maxPriorityFeePerGas: 1n };
    for (let n = 0n; n < BigInt(params.sameSenderPoolCount); n++) {
      const p = pooled(sender(9), n, fees);
      pool.checkShares(p, undefined);
      pool.add(p, undefined);
    }
    const fifth = pooled(sender(9), 4n, fees);
    assert.throws(() => pool.checkShares(fifth, undefined), (err: Error & { code?: number }) => err.code === -32504 && /SREP-010/.test(err.message));
    pool.checkShares({ ...fifth, senderStake: staked }, undefined);

    const paymaster = sender(0xbeef) as Address;
    for (let i = 0; i < params.sameUnstakedEntityPoolCount; i++) {
      const p = pooled(sender(100 + i), 0n, fees, { paymaster });
      pool.checkShares(p, undefined);
      pool.add(p, undefined);
    }
    const over = pooled(sender(200), 0n, fees, { paymaster });
    assert.throws(() => pool.checkShares(over, undefined), (err: Error & { code?: number }) => err.code === -32504 && /unstaked paymaster/.test(err.message));
    pool.checkShares({ ...over, paymasterStake: staked }, undefined);
  });

  it('refuses operations beyond its size with -32005', () => {
    const pool = new UserOperationPool();
    const fees = { maxFeePerGas: 10n, maxPriorityFeePerGas: 1n };
    for (let i = 0; i < params.maxPoolOperations; i++) pool.add(pooled(sender(1000 + i), 0n, fees), undefined);
    assert.throws(() => pool.precheck(pooled(sender(1), 0n, fees).operation), (err: Error & { code?: number }) => err.code === -32005);
    // A replacement does not grow the pool.
    assert.doesNotThrow(() => pool.precheck(pooled(sender(1000), 0n, { maxFeePerGas: 11n, maxPriorityFeePerGas: 2n }).operation));
  });
});

describe('reputation', () => {
  it('throttles above opsSeen/10 > included + 10, bans above included + 50, and decays by 1/24 an hour', () => {
    const r = new Reputation();
    const entity = sender(7);
    const seen = (n: number) => {
      for (let i = 0; i < n; i++) r.seen(entity);
    };
    seen(100);
    assert.equal(r.status(entity), 'ok', '100/10 = 10, not above 0 + 10');
    seen(10);
    assert.equal(r.status(entity), 'throttled', '110/10 = 11 > 10');
    r.included(entity);
    assert.equal(r.status(entity), 'ok', '11 is not above 1 + 10');
    seen(400);
    assert.equal(r.status(entity), 'throttled', '510/10 = 51 is not above 1 + 50');
    seen(10);
    assert.equal(r.status(entity), 'banned', '52 > 1 + 50');
    r.decay();
    const [entry] = r.dump();
    assert.equal(entry!.opsSeen, 520n - 520n / 24n);
    assert.equal(entry!.opsIncluded, 1n);
    for (let i = 0; i < 40; i++) r.decay();
    assert.equal(r.status(entity), 'ok', 'a day and more of decay forgives');
    assert.equal(r.status(sender(8)), 'ok', 'unknown entities are ok');
  });
});
