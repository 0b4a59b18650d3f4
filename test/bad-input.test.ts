// Hostile and malformed input on the raw JSON-RPC socket: every request gets geth's error, and none
// of it changes the chain or stops the node.
import assert from 'node:assert/strict';
import { after, afterEach, before, describe, it } from 'node:test';
import { keccak256, parseGwei, parseTransaction, serializeTransaction, toHex, type Hex, type TransactionSerializable } from 'viem';
import { privateKeyToAccount, type PrivateKeyAccount } from 'viem/accounts';
import { dumpLogsOnFailure } from './support/diagnostics.js';
import { DEV_CHAIN_ID, devPrivateKeys } from './support/dev-accounts.js';
import { httpPost } from './support/http-post.js';
import { JsonRpcError, postRaw, rpc, waitFor, type JsonRpcResponse } from './support/json-rpc.js';
import { NodeProcess } from './support/node-process.js';

const SECP256K1_N = 0xfffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141n;
const FIVE_MIB = 5 * 1024 * 1024;
const ZERO_ADDRESS = '0x0000000000000000000000000000000000000000';

describe('bad input on the JSON-RPC socket', { timeout: 180_000 }, () => {
  let node: NodeProcess | undefined;
  let url: string;
  const keys = devPrivateKeys(10);
  /** Sends the valid transactions of the test. */
  const good = privateKeyToAccount(keys[1]!);
  const goodTo = privateKeyToAccount(keys[2]!).address;
  /** Signs the bad transactions; its balance and nonce must not move. */
  const bad: PrivateKeyAccount = privateKeyToAccount(keys[3]!);
  /** Holds a queued (nonce-gapped) transaction for the already-known and replacement cases. */
  const queuer: PrivateKeyAccount = privateKeyToAccount(keys[9]!);
  const badTxHashes: Hex[] = [];
  let blocksBefore: { number: number; hash: Hex }[] = [];
  let stateBefore: { balance: Hex; nonce: Hex }[] = [];

  before(async () => {
    node = await NodeProcess.start({ blockTimeMs: 250 });
    url = node.url;
    // One good transaction first, so that "nonce too low" has a used nonce to hit.
    await sendGood();
    const head = Number(await rpc<Hex>(url, 'eth_blockNumber'));
    for (let n = 0; n <= head; n++) {
      blocksBefore.push({ number: n, hash: (await rpc<{ hash: Hex }>(url, 'eth_getBlockByNumber', [toHex(n), false])).hash });
    }
    stateBefore = await Promise.all([bad, queuer].map((a) => accountState(a.address)));
  });

  afterEach((t) => dumpLogsOnFailure(t, node));

  after(async () => {
    await node?.dispose();
  });

  async function accountState(address: Hex): Promise<{ balance: Hex; nonce: Hex }> {
    const [balance, nonce] = await Promise.all([
      rpc<Hex>(url, 'eth_getBalance', [address, 'latest']),
      rpc<Hex>(url, 'eth_getTransactionCount', [address, 'latest']),
    ]);
    return { balance, nonce };
  }

  async function sendGood(): Promise<void> {
    const nonce = Number(await rpc<Hex>(url, 'eth_getTransactionCount', [good.address, 'pending']));
    const raw = await good.signTransaction({
      chainId: DEV_CHAIN_ID,
      nonce,
      to: goodTo,
      value: 1n,
      gas: 21_000n,
      maxFeePerGas: parseGwei('10'),
      maxPriorityFeePerGas: parseGwei('1'),
    });
    const hash = await rpc<Hex>(url, 'eth_sendRawTransaction', [raw]);
    assert.equal(hash, keccak256(raw));
    const receipt = await waitFor('the good transaction to be mined', () =>
      rpc<{ status: Hex } | null>(url, 'eth_getTransactionReceipt', [hash]).then((r) => r ?? undefined),
    );
    assert.equal(receipt.status, '0x1');
  }

  /** A transfer from `bad` with the given overrides, signed. */
  async function badTx(overrides: Partial<TransactionSerializable> = {}, signer: PrivateKeyAccount = bad): Promise<Hex> {
    const nonce = Number(await rpc<Hex>(url, 'eth_getTransactionCount', [signer.address, 'latest']));
    return signer.signTransaction({
      type: 'eip1559',
      chainId: DEV_CHAIN_ID,
      nonce,
      to: goodTo,
      value: 1n,
      gas: 21_000n,
      maxFeePerGas: parseGwei('10'),
      maxPriorityFeePerGas: parseGwei('1'),
      ...overrides,
    } as TransactionSerializable);
  }

  /** Submit a raw transaction that must be refused; returns the error. */
  async function refused(raw: Hex): Promise<JsonRpcError> {
    badTxHashes.push(keccak256(raw));
    try {
      await rpc(url, 'eth_sendRawTransaction', [raw]);
    } catch (err) {
      assert.ok(err instanceof JsonRpcError, String(err));
      return err;
    }
    assert.fail(`the node accepted ${raw.slice(0, 40)}…`);
  }

  async function expectError(method: string, params: unknown[], code: number): Promise<JsonRpcError> {
    try {
      const result = await rpc(url, method, params);
      assert.fail(`${method}(${JSON.stringify(params)}) returned ${JSON.stringify(result)}; expected error ${code}`);
    } catch (err) {
      assert.ok(err instanceof JsonRpcError, String(err));
      assert.equal(err.code, code, `${method}(${JSON.stringify(params)}): ${err.message}`);
      return err;
    }
  }

  describe('malformed requests', () => {
    it('answers invalid JSON with -32700 and id null', async () => {
      for (const body of ['{"jsonrpc":"2.0","method":', 'not json', '{"jsonrpc":"2.0","id":1,"method":"eth_blockNumber"']) {
        const res = await postRaw(url, body);
        assert.equal(res.status, 200, body);
        const json = res.json as JsonRpcResponse;
        assert.equal(json.jsonrpc, '2.0');
        assert.equal(json.id, null);
        assert.equal(json.error?.code, -32700, body);
      }
    });

    it('answers a request object without a method, with a bad method or bad version with -32600', async () => {
      for (const request of [
        { jsonrpc: '2.0', id: 1 },
        { jsonrpc: '2.0', id: 2, method: 5 },
        { jsonrpc: '1.0', id: 3, method: 'eth_blockNumber' },
        'a string',
        42,
      ]) {
        const res = await postRaw(url, JSON.stringify(request));
        const json = res.json as JsonRpcResponse;
        assert.equal(json.error?.code, -32600, JSON.stringify(request));
      }
    });

    it('answers an unknown method with -32601 and echoes the id', async () => {
      const res = await postRaw(url, JSON.stringify({ jsonrpc: '2.0', id: 'abc', method: 'eth_noSuchMethod', params: [] }));
      const json = res.json as JsonRpcResponse;
      assert.equal(json.id, 'abc');
      assert.equal(json.error?.code, -32601);
    });
  });

  describe('invalid params (-32602)', () => {
    const address = '0x70997970C51812dc3A010C7d01b50e0d17dc79C8';
    it('rejects a 19-byte address', async () => {
      await expectError('eth_getBalance', ['0x70997970c51812dc3a010c7d01b50e0d17dc79', 'latest'], -32602);
    });
    it('rejects a non-hex address', async () => {
      await expectError('eth_getBalance', ['hello', 'latest'], -32602);
    });
    it('rejects a missing required parameter', async () => {
      const err = await expectError('eth_getBalance', [], -32602);
      assert.equal(err.message, 'missing value for required argument 0');
      await expectError('eth_getTransactionReceipt', [], -32602);
      await expectError('eth_call', [], -32602);
    });
    it('reads "latest" when the optional block parameter is left out (docs/rpc.md, as anvil and reth)', async () => {
      const [implicit, explicit] = await Promise.all([
        rpc<Hex>(url, 'eth_getBalance', [address]),
        rpc<Hex>(url, 'eth_getBalance', [address, 'latest']),
      ]);
      assert.equal(implicit, explicit);
    });
    it('rejects extra parameters', async () => {
      await expectError('eth_getBalance', [address, 'latest', 'extra'], -32602);
    });
    it('rejects a JSON number where a hex quantity is due', async () => {
      await expectError('eth_getBalance', [address, 5], -32602);
    });
    it('rejects a string where the fullTransactions flag is due', async () => {
      await expectError('eth_getBlockByNumber', ['0x0', 'true'], -32602);
    });
    it('rejects a number as block tag', async () => {
      await expectError('eth_getBlockByNumber', [1, false], -32602);
    });
    it('rejects a 31-byte transaction hash', async () => {
      await expectError('eth_getTransactionByHash', [`0x${'ab'.repeat(31)}`], -32602);
    });
    it('rejects a call object that is not an object', async () => {
      await expectError('eth_call', ['0x1234', 'latest'], -32602);
    });
    it('rejects a non-hex raw transaction', async () => {
      await expectError('eth_sendRawTransaction', ['zz'], -32602);
    });
    it('rejects params that are not an array', async () => {
      const res = await postRaw(url, JSON.stringify({ jsonrpc: '2.0', id: 9, method: 'eth_getBalance', params: 'nope' }));
      const code = (res.json as JsonRpcResponse).error?.code;
      assert.ok(code === -32602 || code === -32600, `code ${code}`);
    });
  });

  describe('batches and body size', () => {
    const item = (id: number) => ({ jsonrpc: '2.0', id, method: 'eth_chainId', params: [] });

    it('answers a batch of 1000 with 1000 responses in order', async () => {
      const res = await postRaw(url, JSON.stringify(Array.from({ length: 1000 }, (_, i) => item(i))));
      assert.equal(res.status, 200);
      const json = res.json as JsonRpcResponse[];
      assert.ok(Array.isArray(json));
      assert.equal(json.length, 1000);
      assert.ok(json.every((r, i) => r.id === i && r.result === '0x2328'));
    });

    it('refuses a batch over 1000 items with one -32600 error and runs none of it', async () => {
      const res = await postRaw(url, JSON.stringify(Array.from({ length: 1001 }, (_, i) => item(i + 1))));
      // geth answers with a one-element array carrying the first call's id; a bare object is one error too.
      const answers = (Array.isArray(res.json) ? res.json : [res.json]) as JsonRpcResponse[];
      assert.equal(answers.length, 1, 'one error for the whole batch');
      assert.equal(answers[0]!.error?.code, -32600);
      assert.equal(answers[0]!.result, undefined);
    });

    it('refuses an empty batch with one -32600 error', async () => {
      const res = await postRaw(url, '[]');
      const json = res.json as JsonRpcResponse;
      assert.ok(!Array.isArray(json));
      assert.equal(json.error?.code, -32600);
    });

    it('answers each item of a mixed batch on its own', async () => {
      const res = await postRaw(
        url,
        JSON.stringify([item(1), { jsonrpc: '2.0', id: 2, method: 'eth_nope', params: [] }, 7, { jsonrpc: '2.0', id: 4, method: 'eth_getBalance', params: ['0x12'] }]),
      );
      const json = res.json as JsonRpcResponse[];
      assert.ok(Array.isArray(json));
      assert.equal(json.length, 4);
      const byId = new Map(json.map((r) => [JSON.stringify(r.id), r]));
      assert.equal(byId.get('1')?.result, '0x2328');
      assert.equal(byId.get('2')?.error?.code, -32601);
      assert.equal(byId.get('null')?.error?.code, -32600);
      assert.equal(byId.get('4')?.error?.code, -32602);
    });

    it('refuses a body announced over 5 MiB with HTTP 413 and a -32600 error', async () => {
      const body = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_chainId', params: [], pad: 'x'.repeat(FIVE_MIB) });
      assert.ok(body.length > FIVE_MIB);
      const res = await httpPost(url, body);
      assert.equal(res.status, 413);
      assert.equal((JSON.parse(res.text) as JsonRpcResponse).error?.code, -32600);
    });

    it('refuses a chunked body that grows over 5 MiB with HTTP 413', async () => {
      const res = await httpPost(url, Buffer.alloc(FIVE_MIB + 1, 0x20), { chunked: true });
      assert.equal(res.status, 413);
    });

    it('serves a body just under 5 MiB', async () => {
      const head = JSON.stringify({ jsonrpc: '2.0', id: 5, method: 'eth_chainId', params: [] });
      const body = head + ' '.repeat(FIVE_MIB - head.length);
      const res = await httpPost(url, body);
      assert.equal(res.status, 200);
      assert.equal((JSON.parse(res.text) as JsonRpcResponse).result, '0x2328');
    });
  });

  describe('eth_sendRawTransaction with bad transactions (-32003)', () => {
    it('refuses garbage bytes with an rlp error', async () => {
      for (const raw of ['0xdeadbeef', '0xf8', '0xc0'] as Hex[]) {
        const err = await refused(raw);
        assert.equal(err.code, -32003, `${raw}: ${err.message}`);
        assert.match(err.message, /^rlp: |typed transaction too short/, raw);
      }
    });

    it('refuses an empty transaction', async () => {
      const err = await refused('0x');
      assert.ok(err.code === -32003 || err.code === -32602, `${err.code} ${err.message}`);
    });

    it('refuses a zero or out-of-range r as "invalid sender"', async () => {
      const signed = parseTransaction(await badTx());
      const { r: _r, s, yParity, v: _v, ...unsigned } = signed;
      for (const r of ['0x0', toHex(SECP256K1_N), toHex(2n ** 256n - 1n)] as Hex[]) {
        const err = await refused(serializeTransaction(unsigned as TransactionSerializable, { r, s: s!, yParity: yParity! }));
        assert.equal(err.code, -32003);
        assert.match(err.message, /^invalid sender/, `r=${r}`);
      }
    });

    it('refuses a high-s (malleated) signature as "invalid sender"', async () => {
      const signed = parseTransaction(await badTx());
      const { r, s, yParity, v: _v, ...unsigned } = signed;
      const highS = toHex(SECP256K1_N - BigInt(s!), { size: 32 });
      const err = await refused(serializeTransaction(unsigned as TransactionSerializable, { r: r!, s: highS, yParity: yParity === 0 ? 1 : 0 }));
      assert.equal(err.code, -32003);
      assert.match(err.message, /^invalid sender/);
    });

    it('refuses a signature with flipped bytes of r or s', async () => {
      const signed = parseTransaction(await badTx({ value: 3n }));
      const { r, s, yParity, v: _v, ...unsigned } = signed;
      const flip = (h: Hex) => `0x${h.slice(2, 10)}${[...h.slice(10, 18)].map((c) => (15 - parseInt(c, 16)).toString(16)).join('')}${h.slice(18)}` as Hex;
      for (const sig of [{ r: flip(r!), s: s! }, { r: r!, s: flip(s!) }]) {
        const err = await refused(serializeTransaction(unsigned as TransactionSerializable, { ...sig, yParity: yParity! }));
        assert.equal(err.code, -32003);
        // A flipped signature either recovers no key or the key of an empty account.
        assert.match(err.message, /^(invalid sender|insufficient funds for gas \* price \+ value)/);
      }
    });

    it('refuses another chain id with "invalid chain id for signer"', async () => {
      for (const raw of [await badTx({ chainId: 1 }), await badTx({ type: 'legacy', chainId: 1, gasPrice: parseGwei('10'), maxFeePerGas: undefined, maxPriorityFeePerGas: undefined })]) {
        const err = await refused(raw);
        assert.equal(err.code, -32003);
        assert.match(err.message, /invalid chain id for signer/);
      }
    });

    it('refuses a pre-EIP-155 legacy transaction', async () => {
      const raw = await bad.signTransaction({
        type: 'legacy',
        nonce: Number(await rpc<Hex>(url, 'eth_getTransactionCount', [bad.address, 'latest'])),
        to: goodTo,
        value: 1n,
        gas: 21_000n,
        gasPrice: parseGwei('10'),
      });
      assert.ok(['0x1b', '0x1c'].includes(toHex(parseTransaction(raw).v!)), 'v is 27 or 28');
      const err = await refused(raw);
      assert.equal(err.code, -32003);
      assert.equal(err.message, 'only replay-protected (EIP-155) transactions allowed over RPC');
    });

    it('refuses gas below the intrinsic gas', async () => {
      const err = await refused(await badTx({ gas: 20_999n }));
      assert.equal(err.code, -32003);
      assert.match(err.message, /^intrinsic gas too low/);
    });

    it('refuses a max fee below the base fee', async () => {
      const err = await refused(await badTx({ maxFeePerGas: 1n, maxPriorityFeePerGas: 0n }));
      assert.equal(err.code, -32003);
      assert.match(err.message, /^max fee per gas less than block base fee/);
    });

    it('refuses a value above the balance', async () => {
      const balance = BigInt(await rpc<Hex>(url, 'eth_getBalance', [bad.address, 'latest']));
      const err = await refused(await badTx({ value: balance }));
      assert.equal(err.code, -32003);
      assert.match(err.message, /^insufficient funds for gas \* price \+ value/);
    });

    it('refuses a used nonce with "nonce too low"', async () => {
      // value 2 so that it is not the very transaction mined at nonce 0.
      const err = await refused(await badTx({ nonce: 0, value: 2n }, good));
      assert.equal(err.code, -32003);
      assert.match(err.message, /^nonce too low/);
    });

    it('refuses a transaction over 128 KiB', async () => {
      const err = await refused(await badTx({ to: ZERO_ADDRESS, data: `0x${'01'.repeat(130 * 1024)}`, gas: 10_000_000n }));
      assert.equal(err.code, -32003);
      assert.match(err.message, /oversized data/);
    });

    it('refuses a resent transaction as "already known" and a same-fee replacement as underpriced', async () => {
      const nonce = Number(await rpc<Hex>(url, 'eth_getTransactionCount', [queuer.address, 'latest'])) + 5;
      // A nonce gap keeps the transaction queued, so it stays in the pool for the whole test.
      const queued = await badTx({ nonce }, queuer);
      const hash = await rpc<Hex>(url, 'eth_sendRawTransaction', [queued]);
      assert.equal(hash, keccak256(queued));
      const again = await refused(queued);
      assert.equal(again.code, -32003);
      assert.equal(again.message, 'already known');
      const replacement = await refused(await badTx({ nonce, value: 2n }, queuer));
      assert.equal(replacement.code, -32003);
      assert.equal(replacement.message, 'replacement transaction underpriced');
    });
  });

  describe('after all of it', () => {
    it('still answers, still mines, and nothing changed', async () => {
      const head = Number(await rpc<Hex>(url, 'eth_blockNumber'));
      assert.ok(head >= blocksBefore.length - 1);
      await sendGood();
      for (const { number, hash } of blocksBefore) {
        const block = await rpc<{ hash: Hex }>(url, 'eth_getBlockByNumber', [toHex(number), false]);
        assert.equal(block.hash, hash, `block ${number} unchanged`);
      }
      const stateAfter = await Promise.all([bad, queuer].map((a) => accountState(a.address)));
      assert.deepEqual(stateAfter, stateBefore, 'the bad senders did not move');
      for (const hash of badTxHashes) {
        assert.equal(await rpc(url, 'eth_getTransactionReceipt', [hash]), null, `no receipt for refused ${hash}`);
      }
      assert.ok(node!.running, 'the node process is alive');
    });
  });
});
