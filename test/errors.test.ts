// One error root: SvcError keeps its cause and details, every error class of src/ extends it, and the
// compute intake's refusals are domain errors that only the JSON-RPC edge turns into -32003.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { SvcError } from '../src/errors.js';
import { TxPoolError } from '../src/chain/pool.js';
import { ComputeInputError, ComputeRejectedError } from '../src/compute/intake.js';
import { ExplorerError, NotFoundError as ExplorerNotFound } from '../src/explorer/envelope.js';
import { InternalError, RpcError, TransactionRejectedError } from '../src/rpc/errors.js';
import { repoRoot } from './support/repo.js';

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const full = path.join(dir, name);
    return statSync(full).isDirectory() ? sources(full) : name.endsWith('.ts') ? [full] : [];
  });
}

describe('SvcError', () => {
  it('keeps the cause, takes details from it, and leaves the message short', () => {
    const io = Object.assign(new Error('ENOSPC: no space left on device'), { code: 'ENOSPC' });
    const err = new InternalError('transaction journal write failed', { cause: io });
    assert.equal(err.message, 'transaction journal write failed');
    assert.equal(err.shortMessage, err.message);
    assert.equal(err.cause, io);
    assert.equal(err.details, 'ENOSPC: no space left on device');
    assert.equal(err.code, -32603);
    assert.deepEqual(err.toObject(), { code: -32603, message: 'transaction journal write failed' });
  });

  it('walks the cause chain', () => {
    const inner = new TxPoolError('nonce too low');
    const outer = new TransactionRejectedError('faucet transfer refused: nonce too low', undefined, { cause: inner });
    assert.equal(outer.walk(), inner);
    assert.equal(outer.walk((e) => e instanceof TxPoolError), inner);
    assert.equal(outer.walk((e) => e instanceof ExplorerError), undefined);
    assert.equal(outer.details, 'nonce too low');
    const plain = new SvcError('alone');
    assert.equal(plain.walk(), plain);
    assert.equal(plain.details, undefined);
    assert.equal(plain.code, 'SVC_ERROR');
  });

  it('gives domain errors a string code and edge errors their wire code', () => {
    assert.equal(new TxPoolError('already known').code, 'TX_POOL');
    assert.equal(new ExplorerNotFound('no such block').code, 404);
    assert.equal(new RpcError(-32000, 'x').code, -32000);
    for (const err of [new TxPoolError('a'), new ExplorerNotFound('b'), new RpcError(1, 'c')]) assert.ok(err instanceof SvcError);
  });

  it('keeps the compute intake off the JSON-RPC edge: its refusals are domain errors', () => {
    const refused = new ComputeRejectedError('NOT_ASSIGNED', 'task t is not assigned to m');
    assert.ok(refused instanceof SvcError);
    assert.ok(!(refused instanceof RpcError));
    assert.deepEqual([refused.code, refused.reason], ['COMPUTE_REJECTED', 'NOT_ASSIGNED']);
    assert.ok(!(new ComputeInputError('invalid wallet') instanceof RpcError));
  });

  it('is the root of every error class in src/', () => {
    const src = path.join(repoRoot(), 'src');
    const direct = sources(src)
      .filter((f) => path.relative(src, f) !== 'errors.ts')
      .flatMap((f) => [...readFileSync(f, 'utf8').matchAll(/class (\w+) extends (Error|RangeError|TypeError)\b/g)].map((m) => `${path.relative(src, f)}: ${m[1]}`));
    assert.deepEqual(direct, []);
  });
});
