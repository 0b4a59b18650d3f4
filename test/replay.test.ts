// svc-node's replay: a chain rebuilt from block data alone in a fresh data dir reaches the same hash
// and state root at every height, and a block whose module outcome was altered is refused.
import { describe, it, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pino } from 'pino';
import { encodeFunctionData, type Abi, type Hex } from 'viem';
import { privateKeyToAccount, type PrivateKeyAccount } from 'viem/accounts';
import { core, type Chain } from '../src/native/index.js';
import { appGenesis, ChainApp } from '../src/chain/app.js';
import { devGenesis, devGenesisValidators, type NetworkGenesis } from '../src/chain/genesis.js';
import { createNodeEvents } from '../src/chain/events.js';
import { Mempool } from '../src/chain/mempool.js';
import { replayChain, ReplayMismatchError } from '../src/chain/replay.js';
import { compute as computeParams, rpc as rpcParams, staking as stakingParams, system, CLIENT_NAME, type ComputeParams } from '../src/params.js';
import { shareTarget } from '../src/modules/compute/hooks.js';
import { registrationMessage } from '../src/modules/compute/wire.js';
import type { QueuedRegistration } from '../src/modules/compute/queues.js';
import { ed25519 } from '@noble/curves/ed25519.js';
import { STAKING_ABI } from '../src/modules/staking/module.js';
import { COMPUTE_ABI } from '../src/modules/compute/module.js';
import { DEV_CHAIN_ID, devPrivateKeys } from './support/dev-accounts.js';

const ETHER = 10n ** 18n;
const GWEI = 10n ** 9n;
const T0 = 1_900_000_000;
const genesis: NetworkGenesis = { spec: devGenesis('devnet'), validators: devGenesisValidators() };
const keys = devPrivateKeys(8);
const accounts = keys.map((k) => privateKeyToAccount(k));
const proposer = devGenesisValidators()[0]!.operator;
const log = pino({ level: 'silent' });
/** Compute parameters with a share target the test's searches meet at once. */
const params: ComputeParams = { ...computeParams, shareDifficulty: 1024n };

/** A miner registration signed as svc-miner signs it: the Ed25519 key and the wallet (EIP-191). */
async function signedRegistration(seed: number, sequence: number): Promise<QueuedRegistration> {
  const secret = Buffer.alloc(32, seed);
  const publicKey = Buffer.from(ed25519.getPublicKey(secret));
  const wallet = privateKeyToAccount(`0x${Buffer.alloc(32, seed + 100).toString('hex')}`);
  const fields = { chainId: DEV_CHAIN_ID, wallet: Buffer.from(wallet.address.slice(2), 'hex'), publicKey, tier: 'Cold' as const, models: ['svc-embed-small@v1.0'], sequence };
  const message = registrationMessage(fields);
  return {
    wallet: wallet.address.toLowerCase() as Hex,
    publicKey: `0x${publicKey.toString('hex')}`,
    tier: 'Cold',
    models: fields.models,
    sequence,
    signature: `0x${Buffer.from(ed25519.sign(message, secret)).toString('hex')}`,
    walletSignature: await wallet.signMessage({ message: { raw: message } }),
  };
}

/** A devnet chain in a fresh data dir, its blocks made by the app's four steps with fixed times. */
class Source {
  readonly dir = mkdtempSync(path.join(os.tmpdir(), 'svc-replay-src-'));
  readonly chain: Chain = core.Chain.open(this.dir, genesis.spec, { rpcGasCap: rpcParams.gasCap, stateHistory: 0 });
  readonly mempool = new Mempool({ chain: this.chain, chainId: DEV_CHAIN_ID, events: createNodeEvents() });
  readonly app = new ChainApp(this.chain, this.mempool, stakingParams, appGenesis(genesis), log, params);
  private readonly nonces = new Map<string, number>();
  readonly roots: Hex[] = [];

  async send(from: PrivateKeyAccount, to: Hex, value: bigint, data: Hex = '0x', gas = 300_000n): Promise<void> {
    const nonce = this.nonces.get(from.address) ?? 0;
    this.nonces.set(from.address, nonce + 1);
    const raw = await from.signTransaction({ chainId: DEV_CHAIN_ID, type: 'eip1559', nonce, to, value, data, gas, maxFeePerGas: 100n * GWEI, maxPriorityFeePerGas: GWEI });
    this.mempool.add(Buffer.from(raw.slice(2), 'hex'));
  }

  async call(from: PrivateKeyAccount, to: Hex, abi: Abi, functionName: string, args: unknown[], value = 0n): Promise<void> {
    await this.send(from, to, value, encodeFunctionData({ abi, functionName, args } as never));
  }

  async block(): Promise<number> {
    const height = this.chain.head().number + 1;
    const built = await this.app.produceBlock({ timestampMs: (T0 + height) * 1000, coinbase: proposer, extraData: Buffer.from(CLIENT_NAME), maxTxs: 1000, signers: [proposer] });
    this.roots[height] = `0x${built.produced.head.stateRoot.toString('hex')}`;
    return height;
  }

  close(): void {
    this.chain.close();
    rmSync(this.dir, { recursive: true, force: true });
  }
}

const target = () => path.join(mkdtempSync(path.join(os.tmpdir(), 'svc-replay-to-')), 'data');

describe('svc-node replay', () => {
  const cleanup: (() => void)[] = [];
  after(() => {
    for (const c of cleanup) c();
  });

  it('rebuilds 320 blocks of transfers, staking, compute tasks, pow shares, miner registrations, rewards, liveness, jailing and epochs with identical roots at every height', async () => {
    const src = new Source();
    cleanup.push(() => src.close());
    const [, , alice, bob, carol, dave, validator2] = accounts;
    const genesisValidator = `0x${proposer.toString('hex')}` as Hex;
    const v2 = validator2!.address.toLowerCase() as Hex;
    // The mode this validator announces in its blocks (recorded by the compute module).
    src.app.compute.announceComputeMode('pow');
    for (let i = 0; i < 320; i++) {
      const h = src.chain.head().number + 1;
      // Transfers every block.
      await src.send(alice!, bob!.address, 1000n + BigInt(i));
      if (i % 3 === 0) await src.send(bob!, carol!.address, 7n * BigInt(i + 1));
      // Staking: a second validator that never signs (downtime slash and jail), delegations to both,
      // an undelegation withdrawn after the unbonding period, rewards claimed, an unjail.
      if (h === 2) await src.call(validator2!, system.stakingAddress, STAKING_ABI, 'registerValidator', ['second', 500, 2000, 100], 5n * ETHER);
      if (h === 3) await src.call(carol!, system.stakingAddress, STAKING_ABI, 'delegate', [genesisValidator], 3n * ETHER);
      if (h === 4) await src.call(dave!, system.stakingAddress, STAKING_ABI, 'delegate', [v2], 2n * ETHER);
      if (h === 30) await src.call(carol!, system.stakingAddress, STAKING_ABI, 'undelegate', [genesisValidator, 10n ** 18n]);
      if (h === 100) await src.call(carol!, system.stakingAddress, STAKING_ABI, 'withdraw', []);
      if (h % 50 === 0) await src.call(carol!, system.stakingAddress, STAKING_ABI, 'claimRewards', [genesisValidator]);
      if (h === 60) await src.call(validator2!, system.stakingAddress, STAKING_ABI, 'editCommission', [600]); // refused: once a day
      if (h > 200 && h % 20 === 0) await src.call(validator2!, system.stakingAddress, STAKING_ABI, 'unjail', []);
      // Compute: public tasks paid by transactions, assigned at epoch starts and expired with refunds.
      if (h % 25 === 5) await src.call(bob!, system.computeAddress, COMPUTE_ABI, 'submitTask', ['svc-embed-small@v1.0', `input ${h}`], computeParams.publicTaskMinFee);
      // System messages: proof-of-work shares on the head (one queued twice: the block refuses the
      // duplicate), miner registrations (an old sequence refused), a verdict for no pending check.
      if (h % 7 === 0) {
        const head = src.chain.head().hash;
        const prefix = Buffer.concat([head, proposer]);
        const found = await core.powSearchAll(prefix, BigInt(h) << 20n, 1n << 16n, shareTarget(params.shareDifficulty), 2, 1);
        for (const nonce of found.nonces) {
          const share = { validator: genesisValidator, blockHash: `0x${head.toString('hex')}` as Hex, nonce, hash: `0x${core.powHash(prefix, nonce).toString('hex')}` as Hex };
          src.app.compute.queueShare(share);
          if (h % 14 === 0) src.app.compute.queueShare(share);
        }
      }
      if (h % 40 === 10) {
        src.app.compute.queueRegistration(await signedRegistration(h, h));
        // The first miner again with its first sequence: signed, but not newer, so the block refuses it.
        if (h > 100) src.app.compute.queueRegistration(await signedRegistration(10, 10));
      }
      if (h === 150) src.app.compute.queueVerdict({ proofId: `0x${'11'.repeat(32)}`, passed: false, result: { cosinePpm: 0, maxAbsDiff: 127, hashMatches: false } });
      await src.block();
    }
    const v = src.app.staking.state.validator(v2);
    assert.ok(v && v.slashes.length > 0, 'the second validator was slashed for downtime');
    assert.ok(src.app.staking.state.currentEpoch >= 30, 'epochs closed');
    assert.ok(src.app.compute.counters.tasksExpired + src.app.compute.openTasks().length > 0, 'public tasks entered');
    assert.equal(src.app.compute.validatorCompute(genesisValidator)?.mode, 'pow', 'the announced mode is recorded');
    assert.ok(src.app.compute.hashrate(genesisValidator) > 0n, 'shares were accepted');
    assert.equal(src.app.compute.minerList().length, 8, 'miners registered');
    assert.equal(src.app.compute.miner((await signedRegistration(10, 10)).wallet)?.sequence, 10);
    src.chain.close();

    const to = target();
    cleanup.push(() => rmSync(path.dirname(to), { recursive: true, force: true }));
    const replayed: Hex[] = [];
    const result = await replayChain({
      from: src.dir,
      to,
      genesis,
      chainId: DEV_CHAIN_ID,
      computeParams: params,
      log,
      onBlock: (height, root) => (replayed[height] = `0x${root.toString('hex')}`),
    });
    assert.equal(result.blocks, 320);
    for (let h = 1; h <= 320; h++) assert.equal(replayed[h], src.roots[h], `root at height ${h}`);
    // Reopened, the replayed data dir serves the same chain.
    const copy = core.Chain.open(to, genesis.spec, { rpcGasCap: rpcParams.gasCap, stateHistory: 0 });
    try {
      assert.equal(`0x${copy.head().stateRoot.toString('hex')}`, src.roots[320]);
    } finally {
      copy.close();
    }
    // The source chain's handle is closed above; Source.close would close it again.
    (src as { chain: Chain }).chain = { close() {} } as unknown as Chain;
  });

  it('refuses the block whose module outcome was altered, and keeps the blocks before it', async () => {
    const src = new Source();
    cleanup.push(() => src.close());
    const carol = accounts[4]!;
    const genesisValidator = `0x${proposer.toString('hex')}` as Hex;
    for (let h = 1; h <= 6; h++) {
      if (h === 4) {
        await src.call(carol, system.stakingAddress, STAKING_ABI, 'delegate', [genesisValidator], ETHER);
        // The proposer's staking module decides this delegation with 5,000 more gas than the rule charges.
        const execute = src.app.staking.execute.bind(src.app.staking);
        src.app.staking.execute = (tx, ctx) => {
          src.app.staking.execute = execute;
          const outcome = execute(tx, ctx);
          return { ...outcome, gasUsed: outcome.gasUsed + 5000n };
        };
      }
      await src.block();
    }
    src.chain.close();
    (src as { chain: Chain }).chain = { close() {} } as unknown as Chain;
    const to = target();
    cleanup.push(() => rmSync(path.dirname(to), { recursive: true, force: true }));
    const seen: number[] = [];
    await assert.rejects(
      replayChain({ from: src.dir, to, genesis, chainId: DEV_CHAIN_ID, log, onBlock: (h) => seen.push(h) }),
      (err: unknown) => {
        assert.ok(err instanceof ReplayMismatchError);
        assert.equal(err.height, 4);
        assert.match(err.message, /state root 0x[0-9a-f]{64} .* where the block has 0x[0-9a-f]{64}/);
        return true;
      },
    );
    assert.deepEqual(seen, [1, 2, 3]);
  });

  it('refuses a block whose registration does not carry its wallet\'s signature', async () => {
    const src = new Source();
    cleanup.push(() => src.close());
    const good = await signedRegistration(3, 3);
    const other = await signedRegistration(4, 4);
    await src.block();
    // The proposer relays a registration whose wallet signature is another wallet's (its own queue is not re-verified).
    src.app.compute.queueRegistration({ ...good, walletSignature: other.walletSignature });
    await src.block();
    assert.equal(src.app.compute.minerList().length, 1, 'the proposer applied it');
    src.chain.close();
    (src as { chain: Chain }).chain = { close() {} } as unknown as Chain;
    const to = target();
    cleanup.push(() => rmSync(path.dirname(to), { recursive: true, force: true }));
    await assert.rejects(replayChain({ from: src.dir, to, genesis, chainId: DEV_CHAIN_ID, computeParams: params, log }), (err: unknown) => {
      assert.ok(err instanceof ReplayMismatchError);
      assert.equal(err.height, 2);
      assert.match(err.message, /the proposal is refused: messages: compute: message 0: the wallet signature is not 0x[0-9a-f]{40}'s/);
      return true;
    });
  });

  it('refuses a target data dir that is not empty', async () => {
    const src = new Source();
    const dir = src.dir;
    src.chain.close();
    await assert.rejects(replayChain({ from: dir, to: dir, genesis, chainId: DEV_CHAIN_ID, log }), /is not empty/);
    rmSync(dir, { recursive: true, force: true });
  });
});
