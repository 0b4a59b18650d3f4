// The development methods Hardhat and Foundry scripts use, on a devnet node: each edit arrives in a
// block mined at once (a dev message), reads at "latest" see it, and `svc-node replay` of the chain
// reaches the same roots; a testnet node refuses every one, and a testnet block carrying a dev
// message is invalid.
import assert from 'node:assert/strict';
import { cpSync, mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { execFile } from 'node:child_process';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { JsonRpcProvider, JsonRpcSigner, Network, Wallet, keccak256, parseEther, toBeHex, zeroPadValue } from 'ethers';
import { pino } from 'pino';
import { startNode, type RunningNode } from '../src/node.js';
import { core } from '../src/native/index.js';
import { rpc as rpcParams, CHAIN_ID, system } from '../src/params.js';
import { devGenesis } from '../src/chain/genesis.js';
import { encodeDevMessage } from '../src/chain/devnet-messages.js';
import { devnetConfig } from './support/node-config.js';
import { devPrivateKeys } from './support/dev-accounts.js';
import { rpc, JsonRpcError } from './support/json-rpc.js';
import { spawnCli, SVC_NODE } from './support/cli-process.js';
import { repoRoot } from './support/repo.js';

const log = pino({ level: 'silent' });
/** Returns storage slot 0: PUSH1 0 SLOAD PUSH1 0 MSTORE PUSH1 32 PUSH1 0 RETURN. */
const SLOT0_READER = '0x60005460005260206000f3';
const WHALE = '0x00000000000000000000000000000000000bea15';
const BOB = '0x0000000000000000000000000000000000000b0b';

/** The JSON-RPC error a call answers (fails when it answers a result). */
async function refusal(url: string, method: string, params: unknown[]): Promise<JsonRpcError> {
  try {
    const result = await rpc(url, method, params);
    assert.fail(`${method} answered ${JSON.stringify(result)}`);
  } catch (err) {
    if (!(err instanceof JsonRpcError)) throw err;
    return err;
  }
}

describe('development methods on a devnet node', { timeout: 120_000 }, () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'svc-dev-methods-'));
  const dataDir = path.join(dir, 'data');
  let node: RunningNode | undefined;
  let url: string;
  let provider: JsonRpcProvider;

  before(async () => {
    // A long slot: every block of the test is one a method mined.
    node = await startNode(devnetConfig(dataDir, { blockTimeMs: 60_000 }), { log });
    url = node.rpcUrl;
    const network = new Network('svc-devnet', CHAIN_ID.devnet);
    provider = new JsonRpcProvider(url, network, { staticNetwork: network, pollingInterval: 50, cacheTimeout: -1 });
  });

  after(async () => {
    provider?.destroy();
    await node?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('hardhat_setBalance and anvil_setBalance mine a block whose balance a read at latest sees', async () => {
    const before = await provider.getBlockNumber();
    assert.equal(await provider.send('hardhat_setBalance', [WHALE, toBeHex(parseEther('100'))]), true);
    assert.equal(await provider.getBlockNumber(), before + 1);
    assert.equal(await provider.getBalance(WHALE), parseEther('100'));
    assert.equal(await provider.send('anvil_setBalance', [BOB, '0x1234']), null);
    assert.equal(await provider.getBalance(BOB), 0x1234n);
    // The block carries the edit as a dev message.
    const inputs = node!.services.chain.getBlockInputs(before + 2)!;
    assert.equal(inputs.messages.length, 1);
    assert.match(inputs.messages[0]!.toString('utf8'), /"module":"dev"/);
    // A system module's account is not edited, and nothing is mined.
    const err = await refusal(url, 'hardhat_setBalance', [system.stakingAddress, '0x1']);
    assert.equal(err.code, -32602);
    assert.match(err.message, /system module's account/);
    assert.equal(await provider.getBlockNumber(), before + 2);
  });

  it('eth_sendTransaction from an impersonated account is mined with a receipt, as ethers sends it through a signer', async () => {
    assert.equal(await provider.send('hardhat_impersonateAccount', [WHALE]), true);
    const bobBefore = await provider.getBalance(BOB);
    const whale = new JsonRpcSigner(provider, WHALE);
    const sent = await whale.sendTransaction({ to: BOB, value: parseEther('1.5') });
    const receipt = await sent.wait();
    assert.equal(receipt?.status, 1);
    assert.equal(receipt?.from.toLowerCase(), WHALE);
    assert.equal(receipt?.to?.toLowerCase(), BOB);
    assert.equal(await provider.getBalance(BOB), bobBefore + parseEther('1.5'));
    // geth's transaction shape: from, to, value and nonce as sent; the hash is keccak256 of the raw encoding.
    const tx = await provider.send('eth_getTransactionByHash', [sent.hash]);
    assert.deepEqual(
      { from: tx.from.toLowerCase(), to: tx.to.toLowerCase(), value: BigInt(tx.value), nonce: BigInt(tx.nonce), type: tx.type },
      { from: WHALE, to: BOB, value: parseEther('1.5'), nonce: 0n, type: '0x2' },
    );
    const raw = await provider.send('eth_getRawTransactionByHash', [sent.hash]);
    assert.equal(keccak256(raw), sent.hash);
    assert.equal(await provider.getTransactionCount(WHALE), 1);

    // A wrong nonce is refused before anything is mined.
    const head = await provider.getBlockNumber();
    const stale = await refusal(url, 'eth_sendTransaction', [{ from: WHALE, to: BOB, value: '0x1', nonce: '0x0' }]);
    assert.equal(stale.code, -32003);
    assert.match(stale.message, /nonce too low/);
    assert.equal(await provider.getBlockNumber(), head);

    // Once impersonation stops, and for any other account, the node signs nothing.
    assert.equal(await provider.send('anvil_stopImpersonatingAccount', [WHALE]), null);
    for (const from of [WHALE, new Wallet(devPrivateKeys(1)[0]!).address]) {
      const err = await refusal(url, 'eth_sendTransaction', [{ from, to: BOB, value: '0x1' }]);
      assert.equal(err.code, -32004);
      assert.match(err.message, /holds no keys/);
    }
  });

  it('evm_increaseTime, evm_setNextBlockTimestamp, evm_mine and hardhat_mine set the times of the blocks they mine', async () => {
    const t0 = (await provider.getBlock('latest'))!.timestamp;
    // Hardhat answers the total offset, in decimal.
    assert.equal(await provider.send('evm_increaseTime', [3600]), '3600');
    assert.equal(await provider.send('evm_mine', []), '0x0');
    const t1 = (await provider.getBlock('latest'))!.timestamp;
    assert.ok(t1 >= t0 + 3600 && t1 < t0 + 3600 + 30, `${t1} is about an hour after ${t0}`);

    const t2 = t1 + 1000;
    assert.equal(await provider.send('evm_setNextBlockTimestamp', [toBeHex(t2)]), String(t2));
    await provider.send('evm_mine', []);
    assert.equal((await provider.getBlock('latest'))!.timestamp, t2);
    await provider.send('evm_mine', [t2 + 50]);
    assert.equal((await provider.getBlock('latest'))!.timestamp, t2 + 50);

    const n = await provider.getBlockNumber();
    assert.equal(await provider.send('hardhat_mine', ['0x3', '0xa']), true);
    assert.equal(await provider.getBlockNumber(), n + 3);
    const times = await Promise.all([1, 2, 3].map(async (i) => (await provider.getBlock(n + i))!.timestamp));
    assert.deepEqual([times[1]! - times[0]!, times[2]! - times[1]!], [10, 10]);
    assert.ok(times[0]! >= t2 + 50);
    // viem's testClient.mine sends an interval of 0: the clock times the blocks, a millisecond apart at least.
    assert.equal(await provider.send('hardhat_mine', ['0x2', '0x0']), true);
    const spaced = await Promise.all([n + 4, n + 5].map(async (h) => Number(BigInt((await provider.send('eth_getBlockByNumber', [toBeHex(h), false])).timestampMs))));
    assert.ok(spaced[1]! > spaced[0]! && spaced[0]! > times[2]! * 1000, `${spaced}`);

    // A time not after the head's, and too many blocks, are refused and mine nothing.
    const head = await provider.getBlockNumber();
    for (const [method, params, pattern] of [
      ['evm_setNextBlockTimestamp', [times[2]!], /not after the head's timestamp/],
      ['evm_mine', [times[2]! - 5], /not after the head's timestamp/],
      ['anvil_mine', ['0x3e9'], /at most 1000 blocks/],
    ] as const) {
      const err = await refusal(url, method, [...params]);
      assert.equal(err.code, -32602, method);
      assert.match(err.message, pattern);
    }
    assert.equal(await provider.getBlockNumber(), head);
  });

  it('setCode, setStorageAt and setNonce change what reads at latest return', async () => {
    const contract = '0x00000000000000000000000000000000000c0de5';
    assert.equal(await provider.send('hardhat_setCode', [contract, SLOT0_READER]), true);
    assert.equal(await provider.getCode(contract), SLOT0_READER);
    const word = zeroPadValue(toBeHex(42), 32);
    assert.equal(await provider.send('anvil_setStorageAt', [contract, '0x0', word]), null);
    assert.equal(await provider.getStorage(contract, 0), word);
    assert.equal(BigInt(await provider.call({ to: contract, data: '0x' })), 42n);

    assert.equal(await provider.send('hardhat_setNonce', [BOB, '0x10']), true);
    assert.equal(await provider.getTransactionCount(BOB), 16);
    const lower = await refusal(url, 'hardhat_setNonce', [BOB, '0x1']);
    assert.equal(lower.code, -32602);
    assert.match(lower.message, /must not be smaller than the existing nonce \(16\)/);
  });

  it('a Hardhat-style fixture: evm_snapshot, then edits, an impersonated send, time and blocks; evm_revert rewinds the chain, its indexes and the clock', async () => {
    const ALICE = '0x00000000000000000000000000000000000a11ce';
    const startHead = await provider.getBlockNumber();
    const startBlock = (await provider.getBlock(startHead))!;
    const bobBefore = await provider.getBalance(BOB);
    const supplyBefore = (await provider.send('svc_getNetworkStats', [])).totalSupply;
    const id: string = await provider.send('evm_snapshot', []);
    assert.match(id, /^0x[1-9a-f][0-9a-f]*$/);

    // What a test's fixture does: fund an account, impersonate it, send, jump an hour, mine.
    assert.equal(await provider.send('hardhat_setBalance', [ALICE, toBeHex(parseEther('5'))]), true);
    assert.equal(await provider.send('hardhat_impersonateAccount', [ALICE]), true);
    const sent = await new JsonRpcSigner(provider, ALICE).sendTransaction({ to: BOB, value: parseEther('1') });
    assert.equal((await sent.wait())?.status, 1);
    const offset = BigInt(await provider.send('evm_increaseTime', [0]));
    assert.equal(await provider.send('evm_increaseTime', [3600]), String(offset + 3600n));
    assert.equal(await provider.send('evm_mine', []), '0x0');
    const anHourLater = (await provider.getBlock('latest'))!;
    assert.ok(anHourLater.timestamp >= startBlock.timestamp + 3600);
    const inner: string = await provider.send('evm_snapshot', []);
    assert.ok(BigInt(inner) > BigInt(id));
    assert.equal(await provider.send('hardhat_mine', ['0x3']), true);
    assert.equal(await provider.getBlockNumber(), startHead + 6);
    assert.notEqual((await provider.send('svc_getNetworkStats', [])).totalSupply, supplyBefore);
    const explorerTxs = async () => JSON.stringify(await (await fetch(`${node!.explorerUrl}/api/v1/addresses/${ALICE}/transactions`)).json());
    // The explorer's index has the send once it caught up.
    for (let i = 0; i < 100 && !(await explorerTxs()).includes(sent.hash); i++) await new Promise((r) => setTimeout(r, 50));
    assert.ok((await explorerTxs()).includes(sent.hash));

    assert.equal(await provider.send('evm_revert', [id]), true);
    assert.equal(await provider.getBlockNumber(), startHead);
    assert.equal((await provider.getBlock(startHead))!.hash, startBlock.hash);
    assert.equal(await provider.getBlock(startHead + 1), null);
    assert.equal(await provider.getBalance(ALICE), 0n);
    assert.equal(await provider.getBalance(BOB), bobBefore);
    assert.equal(await provider.getTransactionCount(ALICE), 0);
    assert.equal(await provider.getTransactionReceipt(sent.hash), null);
    assert.equal(await provider.send('eth_getTransactionByHash', [sent.hash]), null);
    // Module state follows (the supply the balance edit minted is gone), and so does the explorer.
    assert.equal((await provider.send('svc_getNetworkStats', [])).totalSupply, supplyBefore);
    assert.ok(!(await explorerTxs()).includes(sent.hash));
    // The snapshot and every later one are used up, as in Hardhat; an unknown id changes nothing.
    assert.equal(await provider.send('evm_revert', [id]), false);
    assert.equal(await provider.send('evm_revert', [inner]), false);
    assert.equal(await provider.send('evm_revert', ['0x99']), false);
    assert.equal(await provider.getBlockNumber(), startHead);
    const bad = await refusal(url, 'evm_revert', ['not an id']);
    assert.equal(bad.code, -32602);

    // The clock is the snapshot's again, and the chain goes on from the rewound head: the same
    // fixture runs again and its transaction gets the same nonce.
    assert.equal(await provider.send('evm_mine', []), '0x0');
    const next = (await provider.getBlock('latest'))!;
    assert.equal(next.number, startHead + 1);
    assert.ok(next.timestamp < startBlock.timestamp + 3600, `block ${next.number} at ${next.timestamp} is not an hour ahead`);
    await provider.send('hardhat_setBalance', [ALICE, toBeHex(parseEther('5'))]);
    const again = await new JsonRpcSigner(provider, ALICE).sendTransaction({ to: BOB, value: parseEther('2') });
    assert.equal(again.nonce, 0);
    assert.equal((await again.wait())?.status, 1);
    assert.equal(await provider.getBalance(BOB), bobBefore + parseEther('2'));
  });

  it('a Hardhat script (snapshot, setBalance, impersonate and send, increaseTime, mine, revert) passes unchanged on Hardhat Network and on the devnet', { timeout: 120_000 }, async () => {
    const project = mkdtempSync(path.join(os.tmpdir(), 'svc-hardhat-script-'));
    try {
      cpSync(path.join(repoRoot(), 'test', 'fixtures', 'hardhat-dev-script'), project, { recursive: true });
      symlinkSync(path.join(repoRoot(), 'node_modules'), path.join(project, 'node_modules'), 'dir');
      const run = (network: string): Promise<{ code: number; out: string }> => {
        const env: NodeJS.ProcessEnv = { ...process.env, HARDHAT_DISABLE_TELEMETRY_PROMPT: 'true', SVC_RPC_URL: url };
        for (const k of ['http_proxy', 'https_proxy', 'HTTP_PROXY', 'HTTPS_PROXY']) delete env[k];
        const cli = path.join(repoRoot(), 'node_modules', 'hardhat', 'internal', 'cli', 'bootstrap.js');
        return new Promise((resolve) => {
          execFile(process.execPath, [cli, 'run', 'scripts/fixture.js', '--network', network], { cwd: project, env, timeout: 90_000 }, (err, stdout, stderr) => {
            resolve({ code: err ? ((err as { code?: number }).code ?? 1) : 0, out: `${stdout}${stderr}` });
          });
        });
      };
      const seen = (out: string) => JSON.parse(out.trim().split('\n').find((l) => l.startsWith('{"passed"')) ?? '{}') as { passed?: boolean; head?: number; mined?: number; hour?: number };
      // The reference: Hardhat's own in-process network.
      const reference = await run('hardhat');
      assert.equal(reference.code, 0, reference.out);
      assert.equal(seen(reference.out).passed, true);
      // The same script against this devnet.
      const head = await provider.getBlockNumber();
      const ours = await run('svc');
      assert.equal(ours.code, 0, ours.out);
      const got = seen(ours.out);
      assert.equal(got.passed, true);
      assert.equal(got.head, head);
      assert.equal(got.mined, head + 2, 'setBalance mined a block, then the send mined the next');
      assert.ok(got.hour! >= 3600);
      // Reverted: the chain is where the script found it.
      assert.equal(await provider.getBlockNumber(), head);
    } finally {
      rmSync(project, { recursive: true, force: true });
    }
  });

  it('svc-node replay of the devnet chain reaches the same hash and state root at every height', async () => {
    const head = node!.services.chain.head().number;
    const roots = new Map<number, string>();
    for (let h = 1; h <= head; h++) roots.set(h, node!.services.chain.getBlockInputs(h)!.head.stateRoot.toString('hex'));
    await node!.stop();
    node = undefined;
    const to = path.join(dir, 'replayed');
    const cli = spawnCli(SVC_NODE, ['replay', '--from', dataDir, '--to', to, '--log-level', 'warn']);
    assert.equal(await cli.exit, 0, `svc-node replay failed: ${cli.stderr()}${cli.stdout()}`);
    assert.match(cli.stdout(), new RegExp(`replayed ${head} blocks`));
    const replayed = core.Chain.open(to, devGenesis('devnet'), { rpcGasCap: rpcParams.gasCap, stateHistory: 0 });
    try {
      assert.equal(replayed.head().number, head);
      for (let h = 1; h <= head; h++) assert.equal(replayed.getBlockInputs(h)!.head.stateRoot.toString('hex'), roots.get(h), `root at height ${h}`);
    } finally {
      replayed.close();
    }
  });
});

describe('development methods on a testnet node', { timeout: 60_000 }, () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'svc-dev-methods-testnet-'));
  let node: RunningNode | undefined;

  before(async () => {
    node = await startNode(
      devnetConfig(dir, { network: 'testnet', chainId: CHAIN_ID.testnet, validatorAddress: '0x00000000000000000000000000000000000a11ce', blockTimeMs: 60_000 }),
      { log },
    );
  });

  after(async () => {
    await node?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('answers every development method -32004 with the reason, and eth_sendTransaction as before', async () => {
    const calls: [string, unknown[]][] = [
      ['evm_mine', []],
      ['evm_increaseTime', [60]],
      ['evm_setNextBlockTimestamp', [4_000_000_000]],
      ['evm_snapshot', []],
      ['hardhat_mine', ['0x2']],
      ['anvil_mine', []],
      ['hardhat_setBalance', [WHALE, '0x1']],
      ['anvil_setCode', [WHALE, '0x00']],
      ['hardhat_setNonce', [WHALE, '0x1']],
      ['anvil_setStorageAt', [WHALE, '0x0', zeroPadValue('0x01', 32)]],
      ['hardhat_impersonateAccount', [WHALE]],
      ['anvil_stopImpersonatingAccount', [WHALE]],
    ];
    for (const [method, params] of calls) {
      const err = await refusal(node!.rpcUrl, method, params);
      assert.equal(err.code, -32004, method);
      assert.match(err.message, /development method: served on the devnet only/, method);
    }
    const send = await refusal(node!.rpcUrl, 'eth_sendTransaction', [{ from: WHALE, to: BOB, value: '0x1' }]);
    assert.equal(send.code, -32004);
    assert.match(send.message, /holds no keys/);
    assert.equal(node!.services.chain.head().number, 0);
  });

  it('refuses a block that carries a dev message', async () => {
    const head = node!.services.chain.head();
    const verdict = await node!.app.processProposal({
      height: head.number + 1,
      timestampMs: head.timestampMs + 1000,
      coinbase: node!.coinbase,
      extraData: Buffer.alloc(0),
      signers: [node!.coinbase],
      txs: [],
      messages: [encodeDevMessage({ kind: 'setBalance', body: { address: WHALE, balance: 1n } })],
    });
    assert.equal(verdict.accept, false);
    assert.match(!verdict.accept ? verdict.reason : '', /development message, which only a devnet chain accepts/);
  });
});
