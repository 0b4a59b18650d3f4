// The ABCI application against CometBFT's requests, sent by the test over the socket the way
// CometBFT sends them (`start --consensus cometbft --abci-addr`, no CometBFT running): the
// handshake, CheckTx and recheck with geth's texts, a pooled transaction decoded once (CheckTx and
// ProcessProposal take the pool's decoding), PrepareProposal, ProcessProposal's refusals (an
// undecodable transaction, misplaced extra data, staking evidence among the transactions, a time
// not after the parent's, an unknown proposer) and the block's FinalizeBlock and Commit.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { create } from '@bufbuild/protobuf';
import { sizeDelimitedDecodeStream, sizeDelimitedEncode } from '@bufbuild/protobuf/wire';
import { privateKeyToAccount } from 'viem/accounts';
import { startNode, type RunningNode } from '../src/node.js';
import { devAccounts } from '../src/chain/dev-accounts.js';
import { consensusAddress } from '../src/consensus/cometbft/home.js';
import { extraDataTx, messageTx } from '../src/consensus/cometbft/block-txs.js';
import { encodeMessage } from '../src/modules/kernel/messages.js';
import { RequestSchema, ResponseSchema, type Request, type Response } from '../src/consensus/cometbft/proto/tendermint/abci/types_pb.js';
import { SVC_NODE } from './support/cli-process.js';
import { devnetConfig } from './support/node-config.js';
import { basePortFor } from './support/testnet.js';

const GWEI = 10n ** 9n;
let dir: string;
let node: RunningNode;
let socket: net.Socket;
let responses: AsyncIterator<Response>;
let proposer: Uint8Array;
let genesisTimeMs: number;

/** One request, its response (CometBFT's consensus connection: strictly one after the other). */
async function ask<C extends NonNullable<Request['value']['case']>>(kind: C, value: object): Promise<Response['value']> {
  socket.write(sizeDelimitedEncode(RequestSchema, create(RequestSchema, { value: { case: kind, value } } as never)));
  const next = await responses.next();
  assert.equal(next.done, false, 'the app closed the connection');
  return next.value.value;
}

const time = (ms: number) => ({ seconds: BigInt(Math.floor(ms / 1000)), nanos: (ms % 1000) * 1_000_000 });

async function transfer(nonce: number): Promise<Buffer> {
  const raw = await privateKeyToAccount(devAccounts()[5]!.privateKey).signTransaction({
    chainId: 9000, type: 'eip1559', nonce, to: devAccounts()[6]!.address as `0x${string}`, value: 1n, gas: 21_000n, maxFeePerGas: 100n * GWEI, maxPriorityFeePerGas: GWEI,
  });
  return Buffer.from(raw.slice(2), 'hex');
}

before(async () => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'svc-abci-app-'));
  const base = basePortFor(5);
  const init = spawnSync(process.execPath, [SVC_NODE, 'testnet', 'init', '--output', dir, '--validators', '1', '--base-port', String(base)], { encoding: 'utf8' });
  assert.equal(init.status, 0, init.stderr);
  const home = path.join(dir, 'node0', 'cometbft');
  const key = JSON.parse(readFileSync(path.join(home, 'config', 'priv_validator_key.json'), 'utf8')) as { pub_key: { value: string } };
  proposer = consensusAddress(Buffer.from(key.pub_key.value, 'base64'));
  genesisTimeMs = Date.parse((JSON.parse(readFileSync(path.join(home, 'config', 'genesis.json'), 'utf8')) as { genesis_time: string }).genesis_time);
  const abci = base + 9;
  node = await startNode(devnetConfig(path.join(dir, 'node0', 'data'), { consensus: 'cometbft', cometbftHome: home, abciAddr: `tcp://127.0.0.1:${abci}` }));
  socket = net.connect(abci, '127.0.0.1');
  await new Promise<void>((resolve) => socket.once('connect', resolve));
  responses = sizeDelimitedDecodeStream(ResponseSchema, socket)[Symbol.asyncIterator]();
});

after(async () => {
  socket?.destroy();
  await node?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe('the ABCI application', () => {
  it('answers the handshake: Info at genesis, InitChain with the genesis set and root, refusing another chain', async () => {
    const info = await ask('info', {});
    assert.equal(info.case, 'info');
    assert.equal((info.value as { lastBlockHeight: bigint }).lastBlockHeight, 0n);
    const wrong = await ask('initChain', { chainId: 'svc-1', initialHeight: 1n, validators: [] });
    assert.equal(wrong.case, 'exception');
    assert.match((wrong.value as { error: string }).error, /genesis is for chain "svc-1"/);
    const init = await ask('initChain', { chainId: 'svc-9000', initialHeight: 1n, validators: [] });
    assert.equal(init.case, 'initChain');
    const v = init.value as { validators: { power: bigint }[]; appHash: Uint8Array };
    assert.deepEqual(v.validators.map((x) => x.power), [1000n]);
    assert.deepEqual(Buffer.from(v.appHash), node.services.chain.head().stateRoot);
  });

  it('admits transactions with the pool\'s rules and geth\'s texts, and rechecks what the pool holds', async () => {
    const ok = await ask('checkTx', { tx: await transfer(0), type: 0 });
    assert.deepEqual([ok.case, (ok.value as { code: number }).code], ['checkTx', 0]);
    const again = await ask('checkTx', { tx: await transfer(0), type: 0 });
    assert.equal((again.value as { code: number }).code, 0, 'in the pool already: through, so that CometBFT gossips it');
    const garbage = await ask('checkTx', { tx: Buffer.from([0x02, 0x01]), type: 0 });
    assert.notEqual((garbage.value as { code: number }).code, 0);
    const tag = await ask('checkTx', { tx: extraDataTx(Buffer.from('x')), type: 0 });
    assert.match((tag.value as { log: string }).log, /extra data is the proposer's/);
    const gone = await ask('checkTx', { tx: await transfer(7), type: 1 });
    assert.deepEqual([(gone.value as { code: number }).code, (gone.value as { log: string }).log], [3, 'no longer in the pool']);
    const kept = await ask('checkTx', { tx: await transfer(0), type: 1 });
    assert.equal((kept.value as { code: number }).code, 0);
    const verdict = await ask('checkTx', { tx: messageTx(encodeMessage({ module: 'compute', kind: 'verdict', body: { proofId: `0x${'11'.repeat(32)}`, passed: true, result: { cosinePpm: 1, maxAbsDiff: 0, hashMatches: true } } })), type: 0 });
    assert.match((verdict.value as { log: string }).log, /carried by the proposer that decided it/);
    // A proof-of-work share is taken from the network only with its work, on a recent block.
    const share = (blockHash: Buffer) =>
      messageTx(encodeMessage({ module: 'compute', kind: 'share', body: { validator: devAccounts()[0]!.address.toLowerCase(), blockHash: `0x${blockHash.toString('hex')}`, nonce: 1n, hash: `0x${'00'.repeat(32)}` } }));
    const lazy = await ask('checkTx', { tx: share(node.services.chain.head().hash), type: 0 });
    assert.match((lazy.value as { log: string }).log, /the share's hash misses the target/);
    const stale = await ask('checkTx', { tx: share(Buffer.alloc(32, 7)), type: 0 });
    assert.match((stale.value as { log: string }).log, /the share's block is not a recent one/);
  });

  it('decodes a transaction once: CheckTx of a pooled one and ProcessProposal of pooled ones take the pool\'s decoding', async () => {
    const chain = node.services.chain;
    const decode = chain.decodeTransactions;
    const decoded: number[] = [];
    chain.decodeTransactions = (raws) => {
      decoded.push(raws.length);
      return decode.call(chain, raws);
    };
    try {
      const pooled = await transfer(0);
      assert.equal(((await ask('checkTx', { tx: pooled, type: 0 })).value as { code: number }).code, 0);
      assert.deepEqual(decoded, [], 'CheckTx of a transaction the pool holds does not decode it again');
      const proposal = { height: 1n, time: time(genesisTimeMs), proposerAddress: proposer, misbehavior: [], hash: Buffer.alloc(32), nextValidatorsHash: Buffer.alloc(32) };
      assert.equal(((await ask('processProposal', { ...proposal, txs: [pooled] })).value as { status: number }).status, 1);
      assert.deepEqual(decoded, [], 'a proposal of pooled transactions is not decoded again');
      assert.equal(((await ask('processProposal', { ...proposal, txs: [pooled, await transfer(1)] })).value as { status: number }).status, 1);
      assert.deepEqual(decoded, [1], 'only the transaction the pool lacks is decoded');
    } finally {
      chain.decodeTransactions = decode;
    }
  });

  it('refuses invalid proposals and accepts a valid one', async () => {
    const height = 1n;
    const good = { height, time: time(genesisTimeMs), proposerAddress: proposer, txs: [await transfer(0)], misbehavior: [], hash: Buffer.alloc(32), nextValidatorsHash: Buffer.alloc(32) };
    const status = async (p: object) => ((await ask('processProposal', p)).value as { status: number }).status;
    assert.equal(await status({ ...good, txs: [Buffer.from([0x02, 0xff])] }), 2, 'a transaction that does not decode');
    assert.equal(await status({ ...good, txs: [await transfer(0), extraDataTx(Buffer.from('x'))] }), 2, 'extra data after a transaction');
    const evidence = messageTx(encodeMessage({ module: 'staking', kind: 'evidence', body: { validator: devAccounts()[0]!.address.toLowerCase(), height: 1 } }));
    assert.equal(await status({ ...good, txs: [evidence] }), 2, 'staking evidence among the transactions');
    assert.equal(await status({ ...good, time: time(Math.floor(genesisTimeMs / 1000) * 1000 - 1000) }), 2, 'a time not after the parent');
    assert.equal(await status({ ...good, proposerAddress: Buffer.alloc(20, 9) }), 2, 'an unknown proposer');
    assert.equal(await status(good), 1);
  });

  it('builds a proposal from the pool, executes it and commits it: app_hash is the new head\'s state root', async () => {
    const prepared = await ask('prepareProposal', { maxTxBytes: 1_000_000n, height: 1n, time: time(genesisTimeMs), proposerAddress: proposer, txs: [], misbehavior: [] });
    const txs = (prepared.value as { txs: Uint8Array[] }).txs;
    assert.ok(txs.some((t) => Buffer.from(t).equals(Buffer.from(txs.at(-1)!))) && txs.length >= 2, 'extra data, then the transfer');
    assert.equal(Buffer.from(txs[0]!)[0], 0x00, 'the proposer\'s extra data first');
    const finalized = await ask('finalizeBlock', { height: 1n, time: time(genesisTimeMs), proposerAddress: proposer, txs, misbehavior: [], hash: Buffer.alloc(32), nextValidatorsHash: Buffer.alloc(32) });
    assert.equal(finalized.case, 'finalizeBlock');
    const appHash = Buffer.from((finalized.value as { appHash: Uint8Array }).appHash);
    assert.equal((finalized.value as { txResults: unknown[] }).txResults.length, txs.length);
    const committed = await ask('commit', {});
    assert.equal(committed.case, 'commit');
    const head = node.services.chain.head();
    assert.equal(head.number, 1);
    assert.deepEqual(head.stateRoot, appHash);
    assert.equal(head.timestampMs, genesisTimeMs);
    const info = await ask('info', {});
    assert.equal((info.value as { lastBlockHeight: bigint }).lastBlockHeight, 1n);
    assert.deepEqual(Buffer.from((info.value as { lastBlockAppHash: Uint8Array }).lastBlockAppHash), appHash);
    // The transfer was mined; its sender's account moved.
    assert.equal(node.services.chain.getAccount(devAccounts()[5]!.addressBytes, 1).nonce, 1n);
  });
});
