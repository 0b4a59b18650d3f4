// A few hundred random staking operations as real transactions through the pool, the staking
// module and the native block builder, with block-level penalties and epochs in between. After
// every block: the EVM balance of every account adds up to the supply (genesis + minted - burned),
// the module's balance equals what its ledger owes, each validator's delegations add up to its
// stake, and nothing is negative.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { encodeFunctionData, type Abi, type Hex } from 'viem';
import { privateKeyToAccount, type PrivateKeyAccount } from 'viem/accounts';
import { faucetAccount } from '../src/chain/genesis.js';
import { bundlerAccount } from '../src/chain/dev-accounts.js';
import { devnetConfig } from './support/node-config.js';
import { startNode, type RunningNode } from '../src/node.js';
import { CHAIN_ID, chain as chainParams, staking as defaultStaking, system, type StakingParams } from '../src/params.js';
import { devPrivateKeys } from './support/dev-accounts.js';
import { repoRoot } from './support/repo.js';
import { prng } from './support/prng.js';

const ABI = JSON.parse(readFileSync(path.join(repoRoot(), 'abi', 'staking.json'), 'utf8')) as Abi;
const ETHER = 10n ** 18n;
const OPERATIONS = 300;

const PARAMS: StakingParams = {
  ...defaultStaking,
  epochLengthBlocks: 5,
  unbondingPeriodSeconds: 8,
  downtimeJailSeconds: 5,
  spotCheckJailSeconds: 6,
  commissionChangeIntervalSeconds: 10,
  signedBlocksWindow: 20,
};


let node: RunningNode;
let dataDir: string;
let clockMs = chainParams.genesisTimestamp.devnet * 1000;

before(async () => {
  dataDir = mkdtempSync(path.join(os.tmpdir(), 'svc-staking-prop-'));
  const config = devnetConfig(dataDir, { blockTimeMs: chainParams.maxBlockTimeMs });
  node = await startNode(config, { stakingParams: PARAMS, now: () => clockMs });
});

after(async () => {
  await node.stop();
  rmSync(dataDir, { recursive: true, force: true });
});

describe('random staking operations through blocks keep every invariant', () => {
  it(`${OPERATIONS} operations`, async (t) => {
    const rand = prng(BigInt(process.env.SVC_PROPERTY_SEED ?? '20261123'));
    const pick = <T>(list: readonly T[]): T => list[Number(rand() % BigInt(list.length))]!;
    const accounts: PrivateKeyAccount[] = devPrivateKeys(10).map((k) => privateKeyToAccount(k));
    const everyone: Hex[] = [
      ...accounts.map((a) => a.address),
      system.stakingAddress as Hex,
      system.treasuryAddress as Hex,
      system.computeAddress as Hex,
      chainParams.multicall3Address as Hex,
      faucetAccount().address as Hex,
      bundlerAccount().address as Hex,
    ];
    const nonces = new Map<string, number>();
    const { chain, app } = node.services;
    const mempool = node.mempool;
    const sent = { total: 0, succeeded: 0, reverted: 0 };

    const submit = async (from: PrivateKeyAccount, functionName: string, args: unknown[], value: bigint) => {
      const nonce = nonces.get(from.address) ?? Number(chain.getAccount(Buffer.from(from.address.slice(2), 'hex'), chain.head().number).nonce);
      const raw = await from.signTransaction({
        type: 'eip1559',
        chainId: CHAIN_ID.devnet,
        nonce,
        to: system.stakingAddress as Hex,
        data: encodeFunctionData({ abi: ABI, functionName, args } as never),
        value,
        gas: 300_000n,
        maxFeePerGas: 100n * 10n ** 9n,
        maxPriorityFeePerGas: 10n ** 9n,
      });
      mempool.add(Buffer.from(raw.slice(2), 'hex'));
      nonces.set(from.address, nonce + 1);
      sent.total++;
    };

    const check = (height: number) => {
      let sum = 0n;
      for (const a of everyone) {
        const balance = chain.getAccount(Buffer.from(a.slice(2), 'hex'), height).balance;
        assert.ok(balance >= 0n);
        sum += balance;
      }
      assert.equal(sum, app.supply(), `supply at block ${height}`);
      const ledger = app.staking.state;
      assert.equal(chain.getAccount(Buffer.from(system.stakingAddress.slice(2), 'hex'), height).balance, ledger.moduleBalance(), `module balance at block ${height}`);
      assert.deepEqual(ledger.checkInvariants(), [], `ledger invariants at block ${height}`);
      for (const v of ledger.validators()) {
        const delegated = ledger.delegationsTo(v.address).reduce((s, d) => s + d.amount, 0n);
        // Token <-> share rounding floors each delegation; the gap is below one wei per delegation.
        assert.ok(v.tokens - delegated >= 0n && v.tokens - delegated < BigInt(ledger.delegationsTo(v.address).length + 1), `stake of ${v.address}`);
        assert.ok(v.tokens >= 0n && v.commission >= 0n);
      }
    };

    check(chain.head().number);
    for (let op = 0; op < OPERATIONS; op++) {
      const from = pick(accounts);
      const validators = app.staking.state.validators().map((v) => v.address as Hex);
      const target = pick([...validators, from.address.toLowerCase() as Hex]);
      switch (Number(rand() % 9n)) {
        case 0:
          await submit(from, 'registerValidator', [`v-${op}`, Number(rand() % 2_000n), 2_000, 300], (1n + (rand() % 50n)) * ETHER);
          break;
        case 1:
        case 2:
          await submit(from, 'delegate', [target], (1n + (rand() % 100n)) * ETHER);
          break;
        case 3:
          await submit(from, 'undelegate', [target, (1n + (rand() % 60n)) * ETHER], 0n);
          break;
        case 4:
          await submit(from, 'withdraw', [], 0n);
          break;
        case 5:
          await submit(from, 'claimRewards', [target], 0n);
          break;
        case 6:
          await submit(from, 'editCommission', [Number(rand() % 2_100n)], 0n);
          break;
        case 7:
          await submit(from, 'unjail', [], 0n);
          break;
        case 8: {
          const candidate = validators.filter((v) => app.staking.state.validator(v as never)?.status !== 'jailed');
          if (candidate.length > 0) app.staking.penalizeFailedSpotCheck(pick(candidate) as never, 'property test penalty');
          break;
        }
      }
      // A block every few operations, with time moving by 1..4 seconds.
      if (rand() % 3n === 0n || op === OPERATIONS - 1) {
        clockMs += Number(1n + (rand() % 4n)) * 1000;
        const { head, included } = await node.driver.produceNext();
        for (const hash of included) {
          const receipt = chain.getTransactionReceipt(hash) as { status: string } | null;
          if (receipt?.status === '0x1') sent.succeeded++;
          else sent.reverted++;
        }
        check(head.number);
      }
    }
    // Everything sent was mined (as a success or a revert), and both kinds occurred.
    while (mempool.stats().pending > 0) {
      clockMs += 1000;
      const { head, included } = await node.driver.produceNext();
      for (const hash of included) {
        const receipt = chain.getTransactionReceipt(hash) as { status: string } | null;
        if (receipt?.status === '0x1') sent.succeeded++;
        else sent.reverted++;
      }
      check(head.number);
    }
    const ledger = app.staking.state;
    t.diagnostic(
      `${sent.total} transactions (${sent.succeeded} succeeded, ${sent.reverted} reverted) in ${chain.head().number} blocks; ` +
        `${ledger.validators().length} validators, ${ledger.totals().burned} wei burned by slashes`,
    );
    assert.equal(sent.succeeded + sent.reverted, sent.total);
    assert.ok(sent.succeeded > OPERATIONS / 4, `succeeded: ${sent.succeeded} of ${sent.total}`);
    assert.ok(sent.reverted > 0);
    assert.ok(app.staking.state.validators().length > 1);
  });
});
