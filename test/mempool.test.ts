// The transaction pool against a real chain database in a temp dir: geth's admission rules and
// texts, pending/queued bookkeeping, block selection order, cleanup after blocks, and the solo driver.
import { describe, it, beforeEach, afterEach } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pino } from 'pino';
import { keccak256, numberToHex, toRlp, type Hex } from 'viem';
import { generatePrivateKey, privateKeyToAccount, sign } from 'viem/accounts';
import type { Chain } from '../src/native/index.js';
import { appGenesis, ChainApp } from '../src/chain/app.js';
import { devAccounts, devGenesis, devGenesisValidators } from '../src/chain/genesis.js';
import { createNodeEvents, type NodeEvents } from '../src/chain/events.js';
import { Mempool, type MempoolLimits } from '../src/chain/mempool.js';
import { TxPoolError } from '../src/chain/pool.js';
import { PoolJournalError } from '../src/chain/pool-journal.js';
import { DriverStoppedError, SoloDriver } from '../src/consensus/solo.js';
import { createMetrics } from '../src/metrics.js';
import { chain as chainParams, mempool as poolParams, rpc as rpcParams, staking as stakingParams } from '../src/params.js';

const { core } = await import('../src/native/index.js');

const GWEI = 10n ** 9n;
const ETHER = 10n ** 18n;
const [alice, bob, carol] = devAccounts();
const RECIPIENT = '0x000000000000000000000000000000000000dEaD' as const;

interface TxFields {
  nonce: number;
  type?: 'eip1559' | 'legacy';
  chainId?: number | null;
  gas?: bigint;
  maxFeePerGas?: bigint;
  maxPriorityFeePerGas?: bigint;
  gasPrice?: bigint;
  value?: bigint;
}

/** A signed raw transaction from a private key (EIP-1559 by default, chain 9000, 10 gwei cap, 1 gwei tip). */
async function signed(privateKey: `0x${string}`, fields: TxFields): Promise<Buffer> {
  const account = privateKeyToAccount(privateKey);
  const chainId = fields.chainId === undefined ? 9000 : fields.chainId;
  const common = { to: RECIPIENT, nonce: fields.nonce, gas: fields.gas ?? 21_000n, value: fields.value ?? 1n };
  const hex =
    fields.type === 'legacy'
      ? await account.signTransaction({
          ...common,
          type: 'legacy',
          gasPrice: fields.gasPrice ?? 10n * GWEI,
          ...(chainId === null ? {} : { chainId }),
        })
      : await account.signTransaction({
          ...common,
          type: 'eip1559',
          chainId: chainId ?? 9000,
          maxFeePerGas: fields.maxFeePerGas ?? 10n * GWEI,
          maxPriorityFeePerGas: fields.maxPriorityFeePerGas ?? 1n * GWEI,
        });
  return Buffer.from(hex.slice(2), 'hex');
}

/** RLP quantity: minimal big-endian bytes, zero as the empty string. */
const rlpQuantity = (n: bigint): Hex => (n === 0n ? '0x' : numberToHex(n));

/**
 * An EIP-1559 transaction signed field by field, for fee combinations that viem and ethers refuse
 * to sign (a tip above the fee cap) but that a node must still reject with geth's text.
 */
async function signedUnchecked1559(
  privateKey: Hex,
  fields: { nonce: number; maxFeePerGas: bigint; maxPriorityFeePerGas: bigint },
): Promise<Buffer> {
  const body: Hex[] = [
    rlpQuantity(9000n),
    rlpQuantity(BigInt(fields.nonce)),
    rlpQuantity(fields.maxPriorityFeePerGas),
    rlpQuantity(fields.maxFeePerGas),
    rlpQuantity(21_000n),
    RECIPIENT,
    rlpQuantity(1n),
    '0x',
  ];
  const unsigned = `0x02${toRlp([...body, []]).slice(2)}` as Hex;
  const sig = await sign({ hash: keccak256(unsigned), privateKey });
  const signedTx = toRlp([...body, [], rlpQuantity(BigInt(sig.yParity ?? 0)), rlpQuantity(BigInt(sig.r)), rlpQuantity(BigInt(sig.s))]);
  return Buffer.from(`02${signedTx.slice(2)}`, 'hex');
}

interface Pool {
  chain: Chain;
  events: NodeEvents;
  mempool: Mempool;
  driver: SoloDriver;
  close(): Promise<void>;
}

/** A fresh devnet database, pool and (unstarted) solo driver. */
function openPool(limits: Partial<MempoolLimits> = {}, blockTimeMs: number = chainParams.maxBlockTimeMs, now?: () => number): Pool {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'svc-mempool-'));
  const chain = core.Chain.open(dir, devGenesis('devnet'), { rpcGasCap: rpcParams.gasCap, stateHistory: 0 });
  const events = createNodeEvents();
  const mempool = new Mempool({ chain, chainId: 9000, events, limits, ...(now ? { now } : {}) });
  const log = pino({ level: 'silent' });
  const genesis = { spec: devGenesis('devnet'), validators: devGenesisValidators() };
  const app = new ChainApp(chain, mempool, stakingParams, appGenesis(genesis), log);
  const driver = new SoloDriver({
    app,
    events,
    log,
    metrics: createMetrics(mempool),
    blockTimeMs,
    coinbase: alice!.addressBytes,
  });
  return {
    chain,
    events,
    mempool,
    driver,
    async close() {
      await driver.stop();
      chain.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Assert that admission fails with a TxPoolError whose message matches, and that the pool is unchanged. */
function assertRejected(pool: Pool, raw: Buffer, message: RegExp | string): void {
  const before = { hashes: pool.mempool.hashes().map((h) => h.toString('hex')), stats: pool.mempool.stats() };
  assert.throws(
    () => pool.mempool.add(raw),
    (err: unknown) => {
      assert.ok(err instanceof TxPoolError, `expected TxPoolError, got ${String(err)}`);
      if (typeof message === 'string') assert.equal(err.message, message);
      else assert.match(err.message, message);
      return true;
    },
  );
  assert.deepEqual({ hashes: pool.mempool.hashes().map((h) => h.toString('hex')), stats: pool.mempool.stats() }, before);
}

const hex = (b: Buffer): string => b.toString('hex');

describe('mempool admission', () => {
  let pool: Pool;
  beforeEach(() => {
    pool = openPool();
  });
  afterEach(() => pool.close());

  describe('decoding: rlp and signature errors keep the core\'s text', () => {
    it('rejects bytes that are not a transaction', () => {
      assertRejected(pool, Buffer.from('f8ff00', 'hex'), /^rlp: /);
    });
  });

  describe('size: over params.mempool.maxTxSizeBytes is "oversized data"', () => {
    it('rejects a raw transaction one byte over the limit', () => {
      assertRejected(pool, Buffer.alloc(poolParams.maxTxSizeBytes + 1, 0xf9), /^oversized data: transaction size 131073, limit 131072$/);
    });
  });

  describe('chain id: "invalid chain id for signer"', () => {
    it('rejects an EIP-1559 transaction for chain 1', async () => {
      assertRejected(pool, await signed(alice!.privateKey, { nonce: 0, chainId: 1 }), 'invalid chain id for signer');
    });
    it('rejects an EIP-155 legacy transaction for chain 1', async () => {
      assertRejected(pool, await signed(alice!.privateKey, { nonce: 0, type: 'legacy', chainId: 1 }), 'invalid chain id for signer');
    });
    it('accepts an EIP-155 legacy transaction for chain 9000', async () => {
      pool.mempool.add(await signed(alice!.privateKey, { nonce: 0, type: 'legacy' }));
      assert.deepEqual(pool.mempool.stats(), { pending: 1, queued: 0 });
    });
  });

  describe('replay protection: legacy transactions without EIP-155 are refused', () => {
    it('rejects an unprotected legacy transaction', async () => {
      assertRejected(
        pool,
        await signed(alice!.privateKey, { nonce: 0, type: 'legacy', chainId: null }),
        'only replay-protected (EIP-155) transactions allowed over RPC',
      );
    });
  });

  describe('duplicates: "already known"', () => {
    it('rejects the same transaction twice', async () => {
      const raw = await signed(alice!.privateKey, { nonce: 0 });
      pool.mempool.add(raw);
      assertRejected(pool, raw, 'already known');
    });
  });

  describe('nonce: below the state nonce is "nonce too low"', () => {
    it('rejects a nonce that a block already used', async () => {
      pool.mempool.add(await signed(alice!.privateKey, { nonce: 0 }));
      await pool.driver.produceNext();
      assertRejected(pool, await signed(alice!.privateKey, { nonce: 0, value: 2n }), /^nonce too low: next nonce 1, tx nonce 0$/);
    });
  });

  describe('nonce: beyond the allowed gap is "nonce too high"', () => {
    it('queues a nonce at the gap limit and rejects one past it', async () => {
      const gap = Number(poolParams.maxNonceGap);
      assertRejected(pool, await signed(alice!.privateKey, { nonce: gap + 1 }), /^nonce too high/);
      pool.mempool.add(await signed(alice!.privateKey, { nonce: gap }));
      assert.deepEqual(pool.mempool.stats(), { pending: 0, queued: 1 });
    });
  });

  describe('gas: over the block gas limit is "exceeds block gas limit"', () => {
    it('rejects gas = block gas limit + 1', async () => {
      assertRejected(pool, await signed(alice!.privateKey, { nonce: 0, gas: BigInt(chainParams.blockGasLimit) + 1n }), 'exceeds block gas limit');
    });
  });

  describe('gas: under the intrinsic gas is "intrinsic gas too low"', () => {
    it('rejects a transfer with 20999 gas', async () => {
      assertRejected(pool, await signed(alice!.privateKey, { nonce: 0, gas: 20_999n }), /^intrinsic gas too low: gas 20999, minimum needed 21000$/);
    });
  });

  describe('fees: tip above the fee cap', () => {
    it('rejects maxPriorityFeePerGas > maxFeePerGas', async () => {
      const raw = await signedUnchecked1559(alice!.privateKey, { nonce: 0, maxFeePerGas: 2n * GWEI, maxPriorityFeePerGas: 3n * GWEI });
      assertRejected(pool, raw, 'max priority fee per gas higher than max fee per gas');
    });
  });

  describe('fees: fee cap below the next base fee', () => {
    it('rejects maxFeePerGas = 1 wei', async () => {
      assertRejected(
        pool,
        await signed(alice!.privateKey, { nonce: 0, maxFeePerGas: 1n, maxPriorityFeePerGas: 0n }),
        /^max fee per gas less than block base fee: address 0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266, maxFeePerGas: 1, baseFee: \d+$/,
      );
    });
  });

  describe('balance: "insufficient funds for gas * price + value"', () => {
    it('rejects a transaction from an unfunded account', async () => {
      assertRejected(pool, await signed(generatePrivateKey(), { nonce: 0 }), /^insufficient funds for gas \* price \+ value: balance 0, tx cost \d+, overshot \d+$/);
    });
    it('counts the sender\'s other pool transactions', async () => {
      pool.mempool.add(await signed(alice!.privateKey, { nonce: 0, value: 9_999n * ETHER }));
      assertRejected(
        pool,
        await signed(alice!.privateKey, { nonce: 1, value: 2n * ETHER }),
        /^insufficient funds for gas \* price \+ value: balance 10000000000000000000000, queued cost \d+, tx cost \d+, overshot \d+$/,
      );
    });
  });

  describe('replacement: same sender and nonce needs both fee caps bumped by params.mempool.priceBumpPercent', () => {
    it('rejects a 5% bump and a bump of the fee cap alone', async () => {
      pool.mempool.add(await signed(alice!.privateKey, { nonce: 0, maxFeePerGas: 100n * GWEI, maxPriorityFeePerGas: 10n * GWEI }));
      assertRejected(
        pool,
        await signed(alice!.privateKey, { nonce: 0, maxFeePerGas: 105n * GWEI, maxPriorityFeePerGas: 10_500_000_000n }),
        'replacement transaction underpriced',
      );
      assertRejected(
        pool,
        await signed(alice!.privateKey, { nonce: 0, maxFeePerGas: 200n * GWEI, maxPriorityFeePerGas: 10n * GWEI }),
        'replacement transaction underpriced',
      );
    });
    it('replaces with a 10% bump of both caps', async () => {
      const old = pool.mempool.add(await signed(alice!.privateKey, { nonce: 0, maxFeePerGas: 100n * GWEI, maxPriorityFeePerGas: 10n * GWEI }));
      const replacement = pool.mempool.add(
        await signed(alice!.privateKey, { nonce: 0, maxFeePerGas: 110n * GWEI, maxPriorityFeePerGas: 11n * GWEI }),
      );
      assert.equal(pool.mempool.get(old), undefined);
      assert.ok(pool.mempool.get(replacement));
      assert.deepEqual(pool.mempool.hashes().map(hex), [hex(replacement)]);
      assert.deepEqual(pool.mempool.stats(), { pending: 1, queued: 0 });
    });
  });

  describe('events: each admitted transaction is announced', () => {
    it('emits pendingTransaction with the hash', async () => {
      const seen: string[] = [];
      pool.events.on('pendingTransaction', (h) => seen.push(hex(h)));
      const hash = pool.mempool.add(await signed(alice!.privateKey, { nonce: 0 }));
      assert.deepEqual(seen, [hex(hash)]);
    });
  });
});

describe('mempool capacity: "txpool is full"', () => {
  let pool: Pool;
  afterEach(() => pool.close());

  it('caps transactions per sender at accountSlots', async () => {
    pool = openPool({ accountSlots: 3 });
    for (let nonce = 0; nonce < 3; nonce++) pool.mempool.add(await signed(alice!.privateKey, { nonce }));
    assertRejected(pool, await signed(alice!.privateKey, { nonce: 3 }), 'txpool is full');
    pool.mempool.add(await signed(bob!.privateKey, { nonce: 0 }));
  });

  it('caps the whole pool at globalSlots, but still takes replacements', async () => {
    pool = openPool({ globalSlots: 2 });
    pool.mempool.add(await signed(alice!.privateKey, { nonce: 0 }));
    pool.mempool.add(await signed(bob!.privateKey, { nonce: 0 }));
    assertRejected(pool, await signed(carol!.privateKey, { nonce: 0 }), 'txpool is full');
    pool.mempool.add(await signed(bob!.privateKey, { nonce: 0, maxFeePerGas: 20n * GWEI, maxPriorityFeePerGas: 2n * GWEI }));
    assert.equal(pool.mempool.size, 2);
  });
});

describe('mempool pending and queued: a nonce gap queues, filling it promotes', () => {
  let pool: Pool;
  beforeEach(() => {
    pool = openPool();
  });
  afterEach(() => pool.close());

  it('tracks pending, queued and the pending nonce as the gap fills', async () => {
    assert.equal(pool.mempool.pendingNonce(alice!.addressBytes), 0n);
    pool.mempool.add(await signed(alice!.privateKey, { nonce: 2 }));
    assert.deepEqual(pool.mempool.stats(), { pending: 0, queued: 1 });
    assert.equal(pool.mempool.pendingNonce(alice!.addressBytes), 0n);
    pool.mempool.add(await signed(alice!.privateKey, { nonce: 0 }));
    assert.deepEqual(pool.mempool.stats(), { pending: 1, queued: 1 });
    assert.equal(pool.mempool.pendingNonce(alice!.addressBytes), 1n);
    pool.mempool.add(await signed(alice!.privateKey, { nonce: 1 }));
    assert.deepEqual(pool.mempool.stats(), { pending: 3, queued: 0 });
    assert.equal(pool.mempool.pendingNonce(alice!.addressBytes), 3n);
    const own = pool.mempool.senderTransactions(alice!.addressBytes);
    assert.deepEqual(own.pending.map((p) => p.tx.nonce), [0n, 1n, 2n]);
    assert.deepEqual(own.queued, []);
  });

  it('lists every pool transaction in admission order', async () => {
    const a = pool.mempool.add(await signed(alice!.privateKey, { nonce: 1 }));
    const b = pool.mempool.add(await signed(bob!.privateKey, { nonce: 0 }));
    const c = pool.mempool.add(await signed(alice!.privateKey, { nonce: 0 }));
    assert.deepEqual(pool.mempool.hashes().map(hex), [a, b, c].map(hex));
  });
});

describe('mempool selection: by effective tip across senders, nonce order within a sender', () => {
  let pool: Pool;
  beforeEach(() => {
    pool = openPool();
  });
  afterEach(() => pool.close());

  it('orders as geth\'s miner does', async () => {
    const a0 = pool.mempool.add(await signed(alice!.privateKey, { nonce: 0, maxPriorityFeePerGas: 1n * GWEI }));
    const a1 = pool.mempool.add(await signed(alice!.privateKey, { nonce: 1, maxPriorityFeePerGas: 9n * GWEI }));
    const b0 = pool.mempool.add(await signed(bob!.privateKey, { nonce: 0, maxPriorityFeePerGas: 5n * GWEI }));
    const c0 = pool.mempool.add(await signed(carol!.privateKey, { nonce: 0, maxPriorityFeePerGas: 3n * GWEI }));
    const picked = pool.mempool.selectForBlock(pool.chain.nextBaseFee(), 10).map((p) => hex(p.tx.hash));
    assert.deepEqual(picked, [b0, c0, a0, a1].map(hex));
    assert.deepEqual(pool.mempool.selectForBlock(pool.chain.nextBaseFee(), 2).map((p) => hex(p.tx.hash)), [b0, c0].map(hex));
  });

  it('caps the tip by the fee cap minus the base fee', async () => {
    const baseFee = pool.chain.nextBaseFee();
    // Nominal tip base fee + 1 gwei, but the cap leaves 1 gwei over the base fee: effective tip 1 gwei.
    const capped = pool.mempool.add(
      await signed(alice!.privateKey, { nonce: 0, maxFeePerGas: baseFee + GWEI, maxPriorityFeePerGas: baseFee + GWEI }),
    );
    const plain = pool.mempool.add(await signed(bob!.privateKey, { nonce: 0, maxPriorityFeePerGas: (3n * GWEI) / 2n }));
    assert.deepEqual(pool.mempool.selectForBlock(baseFee, 10).map((p) => hex(p.tx.hash)), [plain, capped].map(hex));
  });

  it('takes equal tips in the order the pool received them, even within one millisecond', async () => {
    const frozen = openPool({}, chainParams.maxBlockTimeMs, () => 1_700_000_000_000);
    try {
      const senders = devAccounts().slice(0, 8);
      // Received in an order unrelated to the senders' addresses or the transactions' hashes.
      const added: string[] = [];
      for (const i of [5, 2, 7, 0, 3, 6, 1, 4]) {
        added.push(hex(frozen.mempool.add(await signed(senders[i]!.privateKey, { nonce: 0, maxPriorityFeePerGas: 2n * GWEI }))));
      }
      const picked = frozen.mempool.selectForBlock(frozen.chain.nextBaseFee(), 10).map((x) => hex(x.tx.hash));
      assert.equal(picked.length, 8);
      assert.deepEqual(picked, added);
    } finally {
      await frozen.close();
    }
  });

  it('nextBlock (the pending block) picks as selectForBlock does, within a gas limit, and leaves the pool as it was', async () => {
    const a0 = pool.mempool.add(await signed(alice!.privateKey, { nonce: 0, maxPriorityFeePerGas: 1n * GWEI }));
    pool.mempool.add(await signed(alice!.privateKey, { nonce: 1, maxPriorityFeePerGas: 9n * GWEI, gas: 100_000n }));
    const b0 = pool.mempool.add(await signed(bob!.privateKey, { nonce: 0, maxPriorityFeePerGas: 5n * GWEI }));
    const c0 = pool.mempool.add(await signed(carol!.privateKey, { nonce: 0, maxPriorityFeePerGas: 3n * GWEI }));
    const baseFee = pool.chain.nextBaseFee();
    const all = pool.mempool.selectForBlock(baseFee, 10).map((p) => hex(p.tx.hash));
    // 21,000 each for b0, c0 and a0 fit 80,000; alice's next (100,000) does not, and nothing after it of hers.
    assert.deepEqual(pool.mempool.nextBlock(baseFee, 80_000n, 10).map((p) => hex(p.tx.hash)), [b0, c0, a0].map(hex));
    assert.deepEqual(pool.mempool.nextBlock(baseFee, 10_000_000n, 10).map((p) => hex(p.tx.hash)), all);
    assert.equal(pool.mempool.stats().pending, 4);
  });

  it('skips queued transactions and those whose fee cap is below the base fee', async () => {
    pool.mempool.add(await signed(alice!.privateKey, { nonce: 1 }));
    const b0 = pool.mempool.add(await signed(bob!.privateKey, { nonce: 0, maxFeePerGas: 50n * GWEI }));
    pool.mempool.add(await signed(carol!.privateKey, { nonce: 0, maxFeePerGas: 10n * GWEI }));
    assert.deepEqual(pool.mempool.selectForBlock(20n * GWEI, 10).map((p) => hex(p.tx.hash)), [hex(b0)]);
  });
});

describe('mempool after a block: included and stale transactions leave, the rest stays', () => {
  let pool: Pool;
  beforeEach(() => {
    pool = openPool();
  });
  afterEach(() => pool.close());

  it('removes included transactions and keeps a queued one until its gap fills', async () => {
    const a0 = pool.mempool.add(await signed(alice!.privateKey, { nonce: 0 }));
    const a2 = pool.mempool.add(await signed(alice!.privateKey, { nonce: 2 }));
    const b0 = pool.mempool.add(await signed(bob!.privateKey, { nonce: 0 }));
    const produced = await pool.driver.produceNext();
    assert.equal(produced.head.number, 1);
    assert.deepEqual(new Set(produced.included.map(hex)), new Set([a0, b0].map(hex)));
    assert.deepEqual(pool.mempool.hashes().map(hex), [hex(a2)]);
    assert.deepEqual(pool.mempool.stats(), { pending: 0, queued: 1 });
    assert.equal(pool.mempool.pendingNonce(alice!.addressBytes), 1n);
    assert.equal(pool.mempool.pendingNonce(bob!.addressBytes), 1n);

    pool.mempool.add(await signed(alice!.privateKey, { nonce: 1 }));
    assert.deepEqual(pool.mempool.stats(), { pending: 2, queued: 0 });
    const next = await pool.driver.produceNext();
    assert.equal(next.included.length, 2);
    assert.equal(pool.mempool.size, 0);
    assert.equal(pool.mempool.pendingNonce(alice!.addressBytes), 3n);
  });

  it('drops a pool transaction whose nonce a block used for another transaction', async () => {
    pool.mempool.add(await signed(alice!.privateKey, { nonce: 0, value: 1n }));
    const other = await signed(alice!.privateKey, { nonce: 0, value: 2n, maxFeePerGas: 20n * GWEI, maxPriorityFeePerGas: 2n * GWEI });
    const head = pool.chain.head();
    const produced = await pool.chain.produceBlock({
      timestampMs: head.timestampMs,
      coinbase: alice!.addressBytes,
      extraData: Buffer.alloc(0),
      gasLimit: head.gasLimit,
      txs: [other],
      senders: [alice!.addressBytes],
    });
    assert.equal(produced.included.length, 1);
    pool.mempool.onBlock(produced);
    assert.equal(pool.mempool.size, 0);
    assert.deepEqual(pool.mempool.stats(), { pending: 0, queued: 0 });
  });

  it('announces each block to subscribers', async () => {
    const numbers: number[] = [];
    pool.events.on('block', (b) => numbers.push(b.head.number));
    await pool.driver.produceNext();
    await pool.driver.produceNext();
    assert.deepEqual(numbers, [1, 2]);
  });

  it('drops queued transactions of senders silent past the queued lifetime', async () => {
    await pool.close();
    pool = openPool({ queuedLifetimeMs: 0, queuedSweepIntervalMs: 0 });
    pool.mempool.add(await signed(alice!.privateKey, { nonce: 5 }));
    pool.mempool.add(await signed(bob!.privateKey, { nonce: 0 }));
    assert.deepEqual(pool.mempool.stats(), { pending: 1, queued: 1 });
    await new Promise((resolve) => setTimeout(resolve, 5));
    const produced = await pool.driver.produceNext();
    assert.equal(produced.included.length, 1);
    assert.equal(pool.mempool.size, 0);
    assert.deepEqual(pool.mempool.senderTransactions(alice!.addressBytes), { pending: [], queued: [] });
  });
});

describe('solo driver: one block per slot, never overlapping, clean stop', () => {
  it('produces blocks on its timer with non-decreasing timestamps and stops after the block in flight', async () => {
    const pool = openPool({}, 30);
    try {
      const heads: { number: number; timestamp: number }[] = [];
      const three = new Promise<void>((resolve) => {
        pool.events.on('block', (b) => {
          heads.push({ number: b.head.number, timestamp: b.head.timestamp });
          if (heads.length === 3) resolve();
        });
      });
      const raw = await signed(alice!.privateKey, { nonce: 0 });
      const hash = pool.mempool.add(raw);
      pool.driver.start();
      await three;
      await pool.driver.stop();
      const last = pool.chain.head().number;
      assert.ok(last >= 3);
      assert.deepEqual(heads.slice(0, 3).map((h) => h.number), [1, 2, 3]);
      for (let i = 1; i < heads.length; i++) assert.ok(heads[i]!.timestamp >= heads[i - 1]!.timestamp);
      assert.ok(pool.chain.getTransactionReceipt(hash), 'the pooled transaction was not included');
      await new Promise((resolve) => setTimeout(resolve, 100));
      assert.equal(pool.chain.head().number, last, 'a block was produced after stop()');
      await assert.rejects(pool.driver.produceNext(), DriverStoppedError);
    } finally {
      await pool.close();
    }
  });

  it('serialises productions asked for at once', async () => {
    const pool = openPool();
    try {
      const blocks = await Promise.all([pool.driver.produceNext(), pool.driver.produceNext(), pool.driver.produceNext()]);
      assert.deepEqual(blocks.map((b) => b.head.number), [1, 2, 3]);
      assert.deepEqual(blocks[1]!.head.parentHash, blocks[0]!.head.hash);
      assert.deepEqual(blocks[2]!.head.parentHash, blocks[1]!.head.hash);
    } finally {
      await pool.close();
    }
  });
});

describe('submit: a turn\'s submissions are decoded together off the JS thread and admitted in order', () => {
  let pool: Pool;
  beforeEach(() => {
    pool = openPool();
  });
  afterEach(() => pool.close());

  it('a sender\'s nonces sent in one turn are all admitted, each bad one refused with the text add() gives', async () => {
    const raws = await Promise.all([0, 1, 2, 3].map((nonce) => signed(alice!.privateKey, { nonce })));
    const badChain = await signed(bob!.privateKey, { nonce: 0, chainId: 1 });
    const garbage = Buffer.from('f8ff00', 'hex');
    // One turn: nonce 3 before 2 is fine for the pool (queued, then promoted); the two bad ones sit in between.
    const results = await Promise.allSettled([raws[0]!, raws[1]!, badChain, raws[3]!, garbage, raws[2]!].map((r) => pool.mempool.submit(r)));
    const texts = results.map((r) => (r.status === 'fulfilled' ? `0x${hex(r.value)}` : (r.reason as Error).message));
    assert.equal(texts[0], keccak256(`0x${hex(raws[0]!)}`));
    assert.equal(texts[1], keccak256(`0x${hex(raws[1]!)}`));
    assert.equal(texts[2], 'invalid chain id for signer');
    assert.equal(texts[3], keccak256(`0x${hex(raws[3]!)}`));
    assert.match(texts[4]!, /^rlp: /);
    assert.equal(texts[5], keccak256(`0x${hex(raws[2]!)}`));
    assert.ok(results[2]!.status === 'rejected' && results[2]!.reason instanceof TxPoolError);
    assert.equal(pool.mempool.stats().pending, 4);
    assert.equal(pool.mempool.pendingNonce(alice!.addressBytes), 4n);
  });

  it('a block that commits while a submission is decoded does not make the pool judge it by the sender\'s old nonce', async () => {
    // The decoder reads the sender's state at the head; here a block mines the sender's pool
    // transactions after that read and before admission (the pool then forgets the sender).
    const dir = mkdtempSync(path.join(os.tmpdir(), 'svc-mempool-race-'));
    const chain = core.Chain.open(dir, devGenesis('devnet'), { rpcGasCap: rpcParams.gasCap, stateHistory: 0 });
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    let gated = false;
    const held = new Proxy(chain, {
      get(target, prop, receiver) {
        if (prop === 'decodeTransactions') {
          return async (raws: Buffer[]) => {
            const out = await target.decodeTransactions(raws);
            if (gated) await gate;
            return out;
          };
        }
        const v = Reflect.get(target, prop, receiver) as unknown;
        return typeof v === 'function' ? (v as (...a: unknown[]) => unknown).bind(target) : v;
      },
    });
    const events = createNodeEvents();
    const mempool = new Mempool({ chain: held, chainId: 9000, events, limits: { maxNonceGap: 4n } });
    const log = pino({ level: 'silent' });
    const app = new ChainApp(chain, mempool, stakingParams, appGenesis({ spec: devGenesis('devnet'), validators: devGenesisValidators() }), log);
    const driver = new SoloDriver({ app, events, log, metrics: createMetrics(mempool), blockTimeMs: chainParams.maxBlockTimeMs, coinbase: alice!.addressBytes });
    try {
      for (let nonce = 0; nonce < 8; nonce++) mempool.add(await signed(alice!.privateKey, { nonce }));
      gated = true;
      const raw8 = await signed(alice!.privateKey, { nonce: 8 });
      const next = mempool.submit(raw8);
      await new Promise((r) => setImmediate(r));
      const block = await driver.produceNext();
      assert.equal(block.included.length, 8);
      release();
      // Judged by the sender's nonce after the block (8), not before it (0, which would be "nonce too high").
      assert.equal(`0x${hex(await next)}`, keccak256(`0x${hex(raw8)}`));
      assert.equal(mempool.pendingNonce(alice!.addressBytes), 9n);
    } finally {
      await driver.stop();
      chain.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('an oversized transaction is refused before it is decoded, and the same transaction twice in one turn is "already known" the second time', async () => {
    await assert.rejects(pool.mempool.submit(Buffer.alloc(poolParams.maxTxSizeBytes + 1, 0xf9)), /^Error: oversized data|oversized data/);
    const raw = await signed(alice!.privateKey, { nonce: 0 });
    const [first, second] = await Promise.allSettled([pool.mempool.submit(raw), pool.mempool.submit(raw)]);
    assert.equal(first.status, 'fulfilled');
    assert.ok(second.status === 'rejected' && (second.reason as Error).message === 'already known');
  });
});

describe('txpool_*: what the pool holds, as geth shows it', () => {
  it('status, content, contentFrom and inspect list pending and queued transactions by sender and nonce', async () => {
    const { txpoolMethods } = await import('../src/rpc/txpool.js');
    const pool = openPool();
    try {
      const raws = [await signed(alice!.privateKey, { nonce: 0 }), await signed(alice!.privateKey, { nonce: 1 }), await signed(alice!.privateKey, { nonce: 3 }), await signed(bob!.privateKey, { nonce: 0 })];
      for (const raw of raws) pool.mempool.add(raw);
      const ctx = { services: { mempool: pool.mempool, chain: pool.chain } } as never;
      const call = (name: string, params: unknown[] = []) => txpoolMethods[name]!.run(ctx, params as never);
      assert.deepEqual(await call('txpool_status'), { pending: '0x3', queued: '0x1' });
      const content = (await call('txpool_content')) as { pending: Record<string, Record<string, { hash: string; nonce: string }>>; queued: Record<string, Record<string, { hash: string }>> };
      assert.deepEqual(Object.keys(content.pending[alice!.address]!), ['0', '1']);
      assert.deepEqual(Object.keys(content.queued[alice!.address]!), ['3']);
      assert.equal(content.pending[alice!.address]!['1']!.hash, keccak256(`0x${hex(raws[1]!)}`));
      assert.deepEqual(Object.keys(content.pending[bob!.address]!), ['0']);
      assert.equal(content.queued[bob!.address], undefined);
      const from = (await call('txpool_contentFrom', [alice!.addressBytes])) as { pending: Record<string, unknown>; queued: Record<string, unknown> };
      assert.deepEqual([Object.keys(from.pending), Object.keys(from.queued)], [['0', '1'], ['3']]);
      const inspect = (await call('txpool_inspect')) as { pending: Record<string, Record<string, string>> };
      assert.match(inspect.pending[alice!.address]!['0']!, /^0x[0-9a-fA-F]{40}: \d+ wei \+ \d+ gas × \d+ wei$/);
    } finally {
      await pool.close();
    }
  });
});

/**
 * A journal whose writes the test answers one by one (the pool's side of the contract: append
 * resolves once the record is on disk, or rejects with PoolJournalError, as PoolJournal does on a
 * full disk; test/journal-full.test.ts shows the same with a real full disk).
 */
class ScriptedJournal {
  readonly writes: { raw: Buffer; resolve(): void; reject(err: Error): void }[] = [];

  append(raw: Buffer): Promise<void> {
    return new Promise((resolve, reject) => this.writes.push({ raw, resolve, reject }));
  }

  /** Waits until `count` appends were asked for (admission runs after an off-thread decode). */
  async appended(count: number): Promise<void> {
    for (let i = 0; this.writes.length < count; i++) {
      if (i > 2_000) throw new Error(`${this.writes.length} appends, expected ${count}`);
      await new Promise((resolve) => setTimeout(resolve, 1));
    }
  }

  succeed(i: number): void {
    this.writes[i]!.resolve();
  }

  fail(i: number): void {
    this.writes[i]!.reject(new PoolJournalError('ENOSPC: no space left on device, write'));
  }
}

describe('submit with a failing journal: an error answer means the transaction is not kept', () => {
  let pool: Pool;
  let journal: ScriptedJournal;
  beforeEach(() => {
    pool = openPool();
    journal = new ScriptedJournal();
    pool.mempool.useJournal(journal);
  });
  afterEach(() => pool.close());

  const hashOf = (raw: Buffer): string => keccak256(`0x${hex(raw)}`);
  const settled = async (p: Promise<Buffer>): Promise<string> => p.then((h) => `0x${hex(h)}`, (err: Error) => `${err.name}: ${err.message}`);
  const chainNonce = (address: Buffer): bigint => pool.chain.getAccount(address, pool.chain.head().number).nonce;

  it('is offered to a block at once; its answer waits for the journal, and it is announced only once journaled', async () => {
    const seen: string[] = [];
    pool.events.on('pendingTransaction', (h) => seen.push(`0x${hex(h)}`));
    const raws = await Promise.all([0, 1].map((nonce) => signed(alice!.privateKey, { nonce })));
    const answers = raws.map((raw) => pool.mempool.submit(raw));
    await journal.appended(2);
    let answered = 0;
    for (const a of answers) void a.then(() => (answered += 1));
    assert.deepEqual(pool.mempool.selectForBlock(0n, 100).map((p) => keccak256(`0x${hex(p.raw)}`)), raws.map(hashOf), 'offered while the writes run');
    assert.deepEqual(seen, []);
    journal.succeed(1);
    assert.equal(await settled(answers[1]!), hashOf(raws[1]!));
    assert.deepEqual(seen, [hashOf(raws[1]!)]);
    // A block mines both; nonce 0 is answered when its write ends, not before.
    assert.deepEqual((await pool.driver.produceNext()).included.map((h) => `0x${hex(h)}`), raws.map(hashOf));
    assert.equal(answered, 1);
    journal.succeed(0);
    assert.equal(await settled(answers[0]!), hashOf(raws[0]!));
  });

  it('a write that fails after a block mined the transaction answers its hash: the chain holds it', async () => {
    const raw = await signed(alice!.privateKey, { nonce: 0 });
    const answer = pool.mempool.submit(raw);
    await journal.appended(1);
    assert.deepEqual((await pool.driver.produceNext()).included.map((h) => `0x${hex(h)}`), [hashOf(raw)]);
    journal.fail(0);
    assert.equal(await settled(answer), hashOf(raw));
    assert.ok(pool.chain.getTransactionReceipt(Buffer.from(hashOf(raw).slice(2), 'hex')));
    assert.equal(chainNonce(alice!.addressBytes), 1n);
  });

  it('a write that fails while the block in flight carries the transaction: the answer waits for that block', async () => {
    const raw = await signed(alice!.privateKey, { nonce: 0 });
    const answer = pool.mempool.submit(raw);
    await journal.appended(1);
    // The write fails between the proposal that took the transaction and the commit of its block.
    const select = pool.mempool.selectForBlock.bind(pool.mempool);
    let took!: () => void;
    const taken = new Promise<void>((resolve) => (took = resolve));
    pool.mempool.selectForBlock = (baseFee, max) => {
      const picked = select(baseFee, max);
      took();
      return picked;
    };
    const producing = pool.driver.produceNext();
    await taken;
    journal.fail(0);
    assert.deepEqual((await producing).included.map((h) => `0x${hex(h)}`), [hashOf(raw)]);
    assert.equal(await settled(answer), hashOf(raw), 'mined: the hash, not the journal\'s error');
    assert.equal(chainNonce(alice!.addressBytes), 1n);
  });

  it('a write that fails after a proposal took the transaction, and the committed block does not carry it: the error, and it is never mined', async () => {
    const raw = await signed(alice!.privateKey, { nonce: 0 });
    const answer = pool.mempool.submit(raw);
    await journal.appended(1);
    let answered = false;
    void answer.then(() => (answered = true), () => (answered = true));
    // A proposal takes it (a CometBFT round that does not decide that proposal), then the write fails.
    assert.equal(pool.mempool.selectForBlock(0n, 100).length, 1);
    journal.fail(0);
    await new Promise((resolve) => setImmediate(resolve));
    assert.equal(answered, false, 'the answer waits for the next committed block');
    // The next block is not offered it; once committed, the caller hears the error and the pool lets it go.
    assert.equal((await pool.driver.produceNext()).included.length, 0);
    assert.match(await settled(answer), /^PoolJournalError: .*ENOSPC/);
    assert.equal(pool.mempool.size, 0);
    assert.equal((await pool.driver.produceNext()).included.length, 0);
    assert.equal(chainNonce(alice!.addressBytes), 0n);
  });

  it('a failed write answers the error, the transaction leaves the pool and is never mined; later nonces wait queued for the gap; a retry fills it', async () => {
    const seen: string[] = [];
    pool.events.on('pendingTransaction', (h) => seen.push(`0x${hex(h)}`));
    const raws = await Promise.all([0, 1, 2].map((nonce) => signed(alice!.privateKey, { nonce })));
    const answers = raws.map((raw) => pool.mempool.submit(raw));
    await journal.appended(3);
    assert.equal(pool.mempool.pendingNonce(alice!.addressBytes), 3n);
    // Nonce 0's write fails; 1 and 2 (a later write, after the disk got space back) succeed.
    journal.fail(0);
    journal.succeed(1);
    journal.succeed(2);
    assert.deepEqual(await Promise.all(answers.map(settled)), [
      'PoolJournalError: transaction journal write failed: ENOSPC: no space left on device, write',
      hashOf(raws[1]!),
      hashOf(raws[2]!),
    ]);
    assert.equal(pool.mempool.get(Buffer.from(hashOf(raws[0]!).slice(2), 'hex')), undefined, 'the failed one left the pool');
    assert.deepEqual(pool.mempool.stats(), { pending: 0, queued: 2 });
    assert.equal(pool.mempool.pendingNonce(alice!.addressBytes), 0n, 'a retry with the same nonce is what the pool asks for');
    assert.deepEqual(seen, [hashOf(raws[1]!), hashOf(raws[2]!)]);
    for (let i = 0; i < 3; i++) assert.equal((await pool.driver.produceNext()).included.length, 0);
    assert.equal(chainNonce(alice!.addressBytes), 0n);

    // The wallet sends nonce 0 again (here re-signed with a higher tip): it fills the gap and all three are mined once.
    const retry = await signed(alice!.privateKey, { nonce: 0, maxPriorityFeePerGas: 2n * GWEI });
    const again = pool.mempool.submit(retry);
    await journal.appended(4);
    journal.succeed(3);
    assert.equal(await settled(again), hashOf(retry));
    assert.deepEqual(pool.mempool.stats(), { pending: 3, queued: 0 });
    const block = await pool.driver.produceNext();
    assert.deepEqual(block.included.map((h) => `0x${hex(h)}`), [hashOf(retry), hashOf(raws[1]!), hashOf(raws[2]!)]);
    assert.equal(chainNonce(alice!.addressBytes), 3n);
    assert.equal(pool.chain.getTransactionReceipt(Buffer.from(hashOf(raws[0]!).slice(2), 'hex')), null, 'the answered-with-an-error one is never mined');
    assert.equal(pool.mempool.size, 0);
  });

  it('a write that fails for a whole run of one sender\'s nonces leaves nothing of it in the pool', async () => {
    const raws = await Promise.all([0, 1, 2].map((nonce) => signed(alice!.privateKey, { nonce })));
    const other = await signed(bob!.privateKey, { nonce: 0 });
    const answers = [...raws, other].map((raw) => pool.mempool.submit(raw));
    await journal.appended(4);
    for (let i = 0; i < 3; i++) journal.fail(i);
    journal.succeed(3);
    const texts = await Promise.all(answers.map(settled));
    assert.deepEqual(texts.slice(0, 3).map((t) => /^PoolJournalError: .*ENOSPC/.test(t)), [true, true, true]);
    assert.equal(texts[3], hashOf(other));
    assert.deepEqual(pool.mempool.senderAddresses().map(hex), [hex(bob!.addressBytes)]);
    assert.deepEqual(pool.mempool.stats(), { pending: 1, queued: 0 });
    assert.equal(pool.mempool.pendingNonce(alice!.addressBytes), 0n);
    assert.deepEqual((await pool.driver.produceNext()).included.map((h) => `0x${hex(h)}`), [hashOf(other)]);
    assert.equal(chainNonce(alice!.addressBytes), 0n);
  });

  it('a replacement whose write fails brings back the journaled transaction it replaced', async () => {
    const first = await signed(alice!.privateKey, { nonce: 0 });
    const answer = pool.mempool.submit(first);
    await journal.appended(1);
    journal.succeed(0);
    assert.equal(await settled(answer), hashOf(first));
    // Two replacements in a row while the disk is full: each one's write fails.
    const bump1 = await signed(alice!.privateKey, { nonce: 0, maxFeePerGas: 20n * GWEI, maxPriorityFeePerGas: 2n * GWEI });
    const bump2 = await signed(alice!.privateKey, { nonce: 0, maxFeePerGas: 40n * GWEI, maxPriorityFeePerGas: 4n * GWEI });
    const a1 = pool.mempool.submit(bump1);
    await journal.appended(2);
    const a2 = pool.mempool.submit(bump2);
    await journal.appended(3);
    assert.deepEqual(pool.mempool.hashes().map((h) => `0x${hex(h)}`), [hashOf(bump2)]);
    journal.fail(1);
    journal.fail(2);
    assert.match(await settled(a1), /^PoolJournalError/);
    assert.match(await settled(a2), /^PoolJournalError/);
    assert.deepEqual(pool.mempool.hashes().map((h) => `0x${hex(h)}`), [hashOf(first)], 'the acknowledged one is back');
    assert.deepEqual(pool.mempool.stats(), { pending: 1, queued: 0 });
    assert.deepEqual((await pool.driver.produceNext()).included.map((h) => `0x${hex(h)}`), [hashOf(first)]);

    // A replacement that is journaled, then one whose write fails: the journaled replacement comes back.
    const second = await signed(alice!.privateKey, { nonce: 1 });
    const bump = await signed(alice!.privateKey, { nonce: 1, maxFeePerGas: 20n * GWEI, maxPriorityFeePerGas: 2n * GWEI });
    const bumpAgain = await signed(alice!.privateKey, { nonce: 1, maxFeePerGas: 40n * GWEI, maxPriorityFeePerGas: 4n * GWEI });
    const b0 = pool.mempool.submit(second);
    await journal.appended(4);
    const b1 = pool.mempool.submit(bump);
    await journal.appended(5);
    const b2 = pool.mempool.submit(bumpAgain);
    await journal.appended(6);
    journal.fail(3);
    journal.succeed(4);
    journal.fail(5);
    assert.deepEqual([await settled(b0), await settled(b1), await settled(b2)].map((t) => t.startsWith('0x') ? t : 'error'), ['error', hashOf(bump), 'error']);
    assert.deepEqual(pool.mempool.hashes().map((h) => `0x${hex(h)}`), [hashOf(bump)]);
    assert.deepEqual((await pool.driver.produceNext()).included.map((h) => `0x${hex(h)}`), [hashOf(bump)]);
  });
});
