// A few hundred random governance operations as real transactions through the pool, the
// governance module and the native block builder: proposals of every kind (valid and invalid),
// deposits, votes by the genesis validator, a second validator and delegators, with the clock moved
// so deposit and voting periods end. A model of the module replays every block (transactions in
// their block order, then the block's end: expiries, tallies, execution, treasury spends) and
// after every block the chain must agree with it:
//  - the balances of every account that can hold tokens add up to the supply, and the supply moved
//    by what was minted less the base fee, slashes and burned deposits;
//  - the treasury account holds its accounts' inflows less outflows;
//  - the governance account holds exactly the deposits of the active proposals (records and
//    totals), and every deposit is held, burned or refunded;
//  - every account's balance is what its fees, values, refunds and spends made it (refunded
//    depositors get exactly their deposits back, spend recipients exactly the parts paid);
//  - each finished proposal's status, tally and execution are the model's, pending parameter
//    changes and spends are the model's, and the live parameters are the model's.
// Then two parameter changes each valid alone but not together pass in one block: the second fails.
// A failure names the block and the transaction; SVC_PROPERTY_SEED replays it (SVC_PROPERTY_OPERATIONS: how many).
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { encodeFunctionData, type Abi, type Hex } from 'viem';
import { privateKeyToAccount, type PrivateKeyAccount } from 'viem/accounts';
import { devnetConfig } from './support/node-config.js';
import { startNode, type RunningNode } from '../src/node.js';
import {
  CHAIN_ID,
  chain as chainParams,
  compute as defaultCompute,
  governance as defaultGovernance,
  staking as defaultStaking,
  system,
  type GovernanceParams,
  type StakingParams,
} from '../src/params.js';
import { governable, governableParam } from '../src/modules/governable.js';
import { devPrivateKeys } from './support/dev-accounts.js';
import { repoRoot } from './support/repo.js';
import { prng } from './support/prng.js';
import type { ProposalStatus, TallyResult } from '../src/modules/governance/types.js';

const GOV_ABI = JSON.parse(readFileSync(path.join(repoRoot(), 'abi', 'governance.json'), 'utf8')) as Abi;
const STAKING_ABI = JSON.parse(readFileSync(path.join(repoRoot(), 'abi', 'staking.json'), 'utf8')) as Abi;
const ETHER = 10n ** 18n;
const OPERATIONS = Number(process.env.SVC_PROPERTY_OPERATIONS ?? 800);
const GAS = 600_000n;
/** Too little for any submission: intrinsic gas plus the module's 150,000. */
const LOW_GAS = 60_000n;

const STAKING: StakingParams = {
  ...defaultStaking,
  epochLengthBlocks: 5,
  unbondingPeriodSeconds: 8,
  downtimeJailSeconds: 5,
  spotCheckJailSeconds: 6,
  commissionChangeIntervalSeconds: 10,
  signedBlocksWindow: 20,
};

const GOVERNANCE: GovernanceParams = {
  ...defaultGovernance,
  depositPeriodSeconds: 20,
  votingPeriodSeconds: 10,
  maxActiveProposals: 10,
  maxVestingEpochs: 6,
  modelRetirementGraceBlocks: 5,
};

type Addr = `0x${string}`;
const GOV = system.governanceAddress.toLowerCase() as Addr;
const TREASURY = system.treasuryAddress.toLowerCase() as Addr;
const STAKING_ADDR = system.stakingAddress.toLowerCase() as Addr;
const COMPUTE = system.computeAddress.toLowerCase() as Addr;
const ZERO: Addr = '0x0000000000000000000000000000000000000000';
const OPTIONS = ['yes', 'abstain', 'no', 'no-with-veto'] as const;
const MODEL_ID = /^[a-z0-9][a-z0-9-]{0,62}@v[0-9]{1,4}\.[0-9]{1,4}$/;
const buf = (a: string) => Buffer.from(a.slice(2), 'hex');

/** Parameter changes a proposal may carry that always hold together (but the treasury and miners' shares). */
const SAFE_CHANGES: Record<string, bigint[]> = {
  'governance.quorumBps': [2_000n, 3_340n, 5_000n],
  'governance.thresholdBps': [4_000n, 5_000n, 6_000n],
  'governance.vetoThresholdBps': [2_500n, 3_340n],
  'governance.burnDepositsOnVeto': [0n, 1n],
  'governance.burnDepositsOnNoQuorum': [0n, 1n],
  'governance.burnDepositsOnExpiry': [0n, 1n],
  'governance.votingPeriodSeconds': [6n, 10n, 14n],
  'governance.depositPeriodSeconds': [15n, 20n, 30n],
  'governance.minDeposit': [5n * ETHER, 10n * ETHER, 15n * ETHER],
  'governance.maxVestingEpochs': [4n, 6n],
  'governance.modelRetirementGraceBlocks': [3n, 5n],
  'staking.epochLengthBlocks': [4n, 5n, 6n],
  'staking.blockReward': [1n * ETHER, 2n * ETHER, 4n * ETHER],
  // 7000 + 3500 exceeds 10000: each is valid alone, the second of two passed ones fails.
  'staking.treasuryShareBps': [1_000n, 2_000n, 7_000n],
  'staking.inferenceMinersShareMaxBps': [2_500n, 3_500n],
  'chain.blockGasLimit': [300_000_000n, 400_000_000n],
};
/** Changes refused at submission: out of range, unknown, not governable, or shares above 100%. */
const BAD_CHANGES: { names: string[]; values: bigint[] }[] = [
  { names: ['governance.quorumBps'], values: [10_001n] },
  { names: ['staking.epochLengthBlocks'], values: [1n] },
  { names: ['governance.minDeposit'], values: [0n] },
  { names: ['governance.maxActiveProposals'], values: [5n] },
  { names: ['staking.nope'], values: [1n] },
  { names: ['governance.quorumBps', 'governance.quorumBps'], values: [1_000n, 2_000n] },
  { names: ['governance.quorumBps', 'governance.thresholdBps'], values: [1_000n] },
  { names: [], values: [] },
  { names: Array(17).fill('governance.quorumBps') as string[], values: Array(17).fill(1_000n) as bigint[] },
  { names: ['staking.treasuryShareBps'], values: [9_000n] },
];

type Content =
  | { kind: 'text' }
  | { kind: 'parameter-change'; names: string[]; values: bigint[] }
  | { kind: 'treasury-spend'; recipient: Addr; amount: bigint; vesting: number }
  | { kind: 'model-approval'; modelId: string; tier: string; dims: number; digest: Hex; size: bigint }
  | { kind: 'model-retirement'; modelId: string };

type Op =
  | { fn: 'submit'; content: Content; title: string }
  | { fn: 'deposit'; id: bigint }
  | { fn: 'vote'; id: bigint; option: number }
  | { fn: 'plain' }
  | { fn: 'staking'; name: string };

interface Sent {
  from: Addr;
  op: Op;
  value: bigint;
  gas: bigint;
}

interface MProposal {
  id: number;
  content: Content;
  status: ProposalStatus;
  depositEndTime: number;
  votingEndTime?: number;
  deposits: Map<Addr, bigint>;
  total: bigint;
  votes: Map<Addr, number>;
  tally?: TallyResult;
  bonded?: bigint;
  fate?: 'refunded' | 'burned';
  execution?: 'applied' | 'failed';
  finalHeight?: number;
}

interface MSpend {
  proposalId: number;
  recipient: Addr;
  amount: bigint;
  paid: bigint;
  parts: number;
  partsPaid: number;
  nextEpoch: number;
}

let node: RunningNode;
let dataDir: string;
let clockMs = chainParams.genesisTimestamp.devnet * 1000;

before(async () => {
  dataDir = mkdtempSync(path.join(os.tmpdir(), 'svc-governance-prop-'));
  const config = devnetConfig(dataDir, { blockTimeMs: chainParams.maxBlockTimeMs });
  node = await startNode(config, { stakingParams: STAKING, governanceParams: GOVERNANCE, now: () => clockMs });
});

after(async () => {
  await node.stop();
  rmSync(dataDir, { recursive: true, force: true });
});

describe('random governance operations through blocks keep every invariant', () => {
  it(`${OPERATIONS} operations`, async (t) => {
    const started = performance.now();
    const seed = BigInt(process.env.SVC_PROPERTY_SEED ?? '20261126');
    const rand = prng(seed);
    const below = (n: number): number => Number(rand() % BigInt(n));
    const chance = (percent: number): boolean => below(100) < percent;
    const pick = <T>(list: readonly T[]): T => list[below(list.length)]!;
    const { chain, app } = node.services;
    const mempool = node.mempool;
    const gov = app.governance;
    const accounts: PrivateKeyAccount[] = devPrivateKeys(10).map((k) => privateKeyToAccount(k));
    const addr = (i: number) => accounts[i]!.address.toLowerCase() as Addr;
    const coinbase = `0x${node.coinbase.toString('hex')}` as Addr;
    assert.equal(coinbase, addr(0), 'the genesis validator seals the blocks');
    const RECIPIENTS: Addr[] = ['0x00000000000000000000000000000000000be001', '0x00000000000000000000000000000000000be002', '0x00000000000000000000000000000000000be003'];
    // Every account that can hold tokens: the genesis allocation (dev accounts, module accounts,
    // multicall3, the faucet) and the spend recipients.
    const everyone: Addr[] = [...new Set([...node.genesis.alloc.map((a) => `0x${a.address.toString('hex')}` as Addr), ...RECIPIENTS])];
    for (const a of [GOV, TREASURY, STAKING_ADDR, ...accounts.map((x) => x.address.toLowerCase() as Addr)]) assert.ok(everyone.includes(a), `${a} in the allocation`);
    const balanceOf = (a: Addr, height = chain.head().number) => chain.getAccount(buf(a), height).balance;

    // ---- the model ----
    const mp = new Map<string, bigint>(governable.map((g) => [`${g.module}.${g.key}`, app.live.value(`${g.module}.${g.key}`)]));
    const rule = (name: string) => mp.get(name)!;
    let anchor: { height: number; epoch: number } | undefined;
    const epochOf = (h: number) => {
      const len = Number(rule('staking.epochLengthBlocks'));
      return anchor && h >= anchor.height ? anchor.epoch + Math.floor((h - anchor.height) / len) : Math.floor(h / len);
    };
    const proposals = new Map<number, MProposal>();
    let nextId = 1;
    let pendingChanges: { proposalId: number; appliesAtEpoch: number; changes: { name: string; value: bigint }[] }[] = [];
    let spends: MSpend[] = [];
    const approved = new Set<string>(defaultCompute.approvedModels.map((m) => m.id));
    const retiring = new Set<string>();
    const totals = { deposited: 0n, held: 0n, burned: 0n, refunded: 0n, spent: 0n, spendsPaid: 0 };
    // Every account's expected balance.
    const expected = new Map<Addr, bigint>(everyone.map((a) => [a, balanceOf(a)]));
    for (const r of RECIPIENTS) assert.equal(expected.get(r), 0n);
    const credit = (a: Addr, amount: bigint) => {
      if (!expected.has(a)) throw new Error(`no model balance for ${a}`);
      expected.set(a, expected.get(a)! + amount);
    };
    const received = new Map<Addr, bigint>();
    const active = () => [...proposals.values()].filter((p) => p.status === 'deposit-period' || p.status === 'voting-period').sort((a, b) => a.id - b.id);

    const stats = {
      operations: 0,
      sent: 0,
      succeeded: 0,
      reverted: 0,
      poolRefused: 0,
      blocks: 0,
      reverts: new Map<string, number>(),
      outcomes: new Map<string, number>(),
      kinds: new Map<string, number>(),
      executions: new Map<string, number>(),
      spendParts: 0,
      spendsWaited: 0,
      paramsApplied: new Map<string, number>(),
      slashed: 0n,
      talliesTwoValidators: 0,
      overrides: 0,
    };
    const bump = (m: Map<string, number>, k: string) => m.set(k, (m.get(k) ?? 0) + 1);

    /** Why `changes` cannot be applied on the model's values with `pending` on top (live-params.ts' rules for the parameters used here). */
    const changeProblem = (changes: { name: string; value: bigint }[], pending: { name: string; value: bigint }[]): string | null => {
      const seen = new Set<string>();
      for (const c of changes) {
        const g = governableParam(c.name);
        if (!g) return 'not governable';
        if (seen.has(c.name)) return 'changed twice';
        seen.add(c.name);
        if (c.value < g.min || c.value > g.max) return 'out of range';
      }
      const v = new Map(mp);
      for (const c of [...pending, ...changes]) v.set(c.name, c.value);
      const ts = v.get('staking.treasuryShareBps')!;
      if (ts + v.get('staking.inferenceMinersShareBps')! > 10_000n || ts + v.get('staking.inferenceMinersShareMaxBps')! > 10_000n) return 'shares above 10000';
      if (v.get('staking.inferenceMinersShareMaxBps')! < v.get('staking.inferenceMinersShareBps')!) return 'miners share range';
      return null;
    };
    const pendingFlat = () => pendingChanges.flatMap((c) => c.changes);

    /** Why a submission reverts in the model's state, or null. */
    const submitProblem = (op: Extract<Op, { fn: 'submit' }>): string | null => {
      const c = op.content;
      switch (c.kind) {
        case 'parameter-change': {
          if (c.names.length !== c.values.length) return 'change: names and values differ';
          if (c.names.length === 0) return 'change: empty';
          if (c.names.length > GOVERNANCE.maxChangesPerProposal) return 'change: too many';
          const p = changeProblem(
            c.names.map((n, i) => ({ name: n, value: c.values[i]! })),
            pendingFlat(),
          );
          if (p) return `change: ${p}`;
          break;
        }
        case 'treasury-spend':
          if (c.amount === 0n) return 'spend: zero';
          if (BigInt(c.vesting) > rule('governance.maxVestingEpochs')) return 'spend: vesting too long';
          if (c.recipient === ZERO) return 'spend: zero recipient';
          if (c.recipient === TREASURY) return 'spend: to the treasury';
          if (c.recipient === GOV || c.recipient === STAKING_ADDR || c.recipient === COMPUTE) return 'spend: to a module account';
          break;
        case 'model-approval':
          if (!MODEL_ID.test(c.modelId)) return 'approval: bad id';
          if (!['Hot', 'Warm', 'Cold'].includes(c.tier)) return 'approval: bad tier';
          if (c.dims < 1 || c.dims > 4096) return 'approval: bad dims';
          if (/^0x0{64}$/.test(c.digest)) return 'approval: zero digest';
          if (c.size < 1n || c.size > 16n * 1024n ** 3n) return 'approval: bad size';
          break;
        case 'model-retirement':
          if (!approved.has(c.modelId) || retiring.has(c.modelId)) return 'retirement: not approved or retiring';
          break;
        case 'text':
          break;
      }
      if (op.title.trim().length === 0) return 'submit: empty title';
      if ([...op.title].length > GOVERNANCE.maxTitleChars) return 'submit: title too long';
      if (active().length >= GOVERNANCE.maxActiveProposals) return 'submit: too many open';
      return null;
    };

    const addDeposit = (p: MProposal, from: Addr, value: bigint, now: number) => {
      p.deposits.set(from, (p.deposits.get(from) ?? 0n) + value);
      p.total += value;
      totals.deposited += value;
      totals.held += value;
      if (p.status === 'deposit-period' && p.total >= rule('governance.minDeposit')) {
        p.status = 'voting-period';
        p.votingEndTime = now + Number(rule('governance.votingPeriodSeconds'));
      }
    };

    /** A transaction of the block, replayed on the model: why it reverts, or null (and then its effects). */
    const replay = (s: Sent, now: number): string | null => {
      const op = s.op;
      if (op.fn === 'staking') return null;
      if (op.fn === 'plain') return 'plain transfer';
      if (op.fn === 'submit' && s.gas === LOW_GAS) return 'out of gas';
      if (op.fn === 'vote' && s.value > 0n) return 'vote: not payable';
      if (op.fn === 'submit') {
        const problem = submitProblem(op);
        if (problem) return problem;
        const p: MProposal = { id: nextId++, content: op.content, status: 'deposit-period', depositEndTime: now + Number(rule('governance.depositPeriodSeconds')), deposits: new Map(), total: 0n, votes: new Map() };
        proposals.set(p.id, p);
        bump(stats.kinds, op.content.kind);
        if (s.value > 0n) addDeposit(p, s.from, s.value, now);
        return null;
      }
      const p = op.id > 0n && op.id < 1_000_000n ? proposals.get(Number(op.id)) : undefined;
      if (!p) return `${op.fn}: unknown proposal`;
      if (p.status !== 'deposit-period' && p.status !== 'voting-period') return `${op.fn}: finished proposal`;
      if (op.fn === 'deposit') {
        if (s.value === 0n) return 'deposit: zero';
        addDeposit(p, s.from, s.value, now);
        return null;
      }
      if (p.status !== 'voting-period') return 'vote: deposit period';
      if (op.option < 1 || op.option > 4) return 'vote: bad option';
      p.votes.set(s.from, op.option);
      return null;
    };

    /** The tally of a proposal's votes on the stake bonded now: a delegator's own vote takes its shares from its validator's. */
    const tallyOf = (p: MProposal) => {
      const ledger = app.staking.state;
      const validators = new Map(
        ledger
          .validators()
          .filter((v) => v.status === 'active')
          .map((v) => [v.address as Addr, { tokens: v.tokens, totalShares: v.totalShares, deducted: 0n, vote: 0 }]),
      );
      const result: TallyResult = { yes: 0n, abstain: 0n, no: 0n, noWithVeto: 0n };
      const add = (option: number, power: bigint) => {
        if (option === 1) result.yes += power;
        else if (option === 2) result.abstain += power;
        else if (option === 3) result.no += power;
        else result.noWithVeto += power;
      };
      let voted = 0n;
      if (validators.size > 1) stats.talliesTwoValidators++;
      for (const [voter, option] of p.votes) {
        const own = validators.get(voter);
        if (own) own.vote = option;
        for (const d of ledger.delegationsOf(voter as never)) {
          const v = validators.get(d.validator as Addr);
          if (!v || v.totalShares === 0n) continue;
          v.deducted += d.shares;
          const validatorVote = p.votes.get(d.validator as Addr);
          if (d.validator !== voter && validatorVote !== undefined && validatorVote !== option) stats.overrides++;
          const power = (d.shares * v.tokens) / v.totalShares;
          add(option, power);
          voted += power;
        }
      }
      let bonded = 0n;
      for (const v of validators.values()) {
        bonded += v.tokens;
        if (v.vote === 0 || v.totalShares === 0n) continue;
        const power = ((v.totalShares - v.deducted) * v.tokens) / v.totalShares;
        add(v.vote, power);
        voted += power;
      }
      let outcome: 'passed' | 'rejected' | 'vetoed' | 'no-quorum';
      let burn = false;
      if (bonded === 0n || voted === 0n || voted * 10_000n < rule('governance.quorumBps') * bonded) {
        outcome = 'no-quorum';
        burn = rule('governance.burnDepositsOnNoQuorum') === 1n;
      } else if (result.noWithVeto * 10_000n > rule('governance.vetoThresholdBps') * voted) {
        outcome = 'vetoed';
        burn = rule('governance.burnDepositsOnVeto') === 1n;
      } else {
        const deciding = voted - result.abstain;
        outcome = deciding > 0n && result.yes * 10_000n > rule('governance.thresholdBps') * deciding ? 'passed' : 'rejected';
      }
      return { result, bonded, outcome, burn };
    };

    /** The block's end in the model: expiries and tallies (deposits refunded or burned), execution, then spends. Returns the deposits burned. */
    const endBlock = (height: number, now: number, epoch: number, treasuryBefore: bigint): { burned: bigint; paid: bigint; finished: MProposal[] } => {
      let burned = 0n;
      const finished: MProposal[] = [];
      const finish = (p: MProposal, status: ProposalStatus, burn: boolean) => {
        if (burn) {
          burned += p.total;
          totals.burned += p.total;
        } else {
          for (const [a, amount] of p.deposits) credit(a, amount);
          totals.refunded += p.total;
        }
        totals.held -= p.total;
        p.status = status;
        p.fate = burn ? 'burned' : 'refunded';
        p.finalHeight = height;
        finished.push(p);
        bump(stats.outcomes, status);
      };
      for (const p of active()) {
        if (p.status === 'deposit-period' && now >= p.depositEndTime) {
          finish(p, 'expired', rule('governance.burnDepositsOnExpiry') === 1n);
        } else if (p.status === 'voting-period' && now >= p.votingEndTime!) {
          const tally = tallyOf(p);
          p.tally = tally.result;
          p.bonded = tally.bonded;
          finish(p, tally.outcome, tally.burn);
          if (tally.outcome !== 'passed') continue;
          // Execution.
          const c = p.content;
          let failed = false;
          if (c.kind === 'parameter-change') {
            const changes = c.names.map((n, i) => ({ name: n, value: c.values[i]! }));
            failed = changeProblem(changes, pendingFlat()) !== null;
            if (!failed) pendingChanges.push({ proposalId: p.id, appliesAtEpoch: epoch + 1, changes });
          } else if (c.kind === 'model-approval') {
            approved.add(c.modelId);
            retiring.delete(c.modelId);
          } else if (c.kind === 'model-retirement') {
            failed = !approved.has(c.modelId) || retiring.has(c.modelId);
            if (!failed) retiring.add(c.modelId);
          } else if (c.kind === 'treasury-spend') {
            spends.push({ proposalId: p.id, recipient: c.recipient, amount: c.amount, paid: 0n, parts: Math.max(1, c.vesting), partsPaid: 0, nextEpoch: c.vesting === 0 ? epoch : epoch + 1 });
          }
          p.execution = failed ? 'failed' : 'applied';
          bump(stats.executions, `${c.kind} ${p.execution}`);
        }
      }
      // Spends due at this epoch, while the treasury holds the part.
      let treasury = treasuryBefore;
      let paid = 0n;
      const left: MSpend[] = [];
      for (const s of spends) {
        if (s.nextEpoch > epoch) {
          left.push(s);
          continue;
        }
        const part = s.partsPaid === s.parts - 1 ? s.amount - s.paid : s.amount / BigInt(s.parts);
        if (part > treasury) {
          stats.spendsWaited++;
          left.push(s);
          continue;
        }
        treasury -= part;
        paid += part;
        credit(s.recipient, part);
        received.set(s.recipient, (received.get(s.recipient) ?? 0n) + part);
        s.paid += part;
        s.partsPaid += 1;
        s.nextEpoch = epoch + 1;
        stats.spendParts++;
        if (s.partsPaid < s.parts) left.push(s);
        else {
          assert.equal(s.paid, s.amount, `spend of proposal ${s.proposalId}: its parts add up to the amount`);
          totals.spendsPaid++;
        }
      }
      spends = left;
      totals.spent += paid;
      return { burned, paid, finished };
    };

    // ---- transactions ----
    const nonces = new Map<string, number>();
    const sent = new Map<string, Sent>();
    const send = async (i: number, to: Addr, abi: Abi | null, op: Op, functionName: string, args: unknown[], value: bigint, gas = GAS) => {
      const from = accounts[i]!;
      const nonce = nonces.get(from.address) ?? Number(chain.getAccount(buf(from.address), chain.head().number).nonce);
      const raw = await from.signTransaction({
        type: 'eip1559',
        chainId: CHAIN_ID.devnet,
        nonce,
        to,
        data: abi ? encodeFunctionData({ abi, functionName, args } as never) : '0x',
        value,
        gas,
        maxFeePerGas: 100n * 10n ** 9n,
        maxPriorityFeePerGas: BigInt(1 + below(3)) * 10n ** 9n,
      });
      try {
        const hash = mempool.add(Buffer.from(raw.slice(2), 'hex'));
        sent.set(hash.toString('hex'), { from: addr(i), op, value, gas });
        nonces.set(from.address, nonce + 1);
        stats.sent++;
      } catch (err) {
        stats.poolRefused++;
        throw new Error(`the pool refused ${functionName} from account ${i}: ${(err as Error).message}`);
      }
    };
    const gov_ = (i: number, op: Op, functionName: string, args: unknown[], value: bigint, gas = GAS) => send(i, GOV, GOV_ABI, op, functionName, args, value, gas);

    const submitTx = (i: number, c: Content, title: string, value: bigint, gas = GAS) => {
      const op: Op = { fn: 'submit', content: c, title };
      const description = `property test proposal (${c.kind})`;
      switch (c.kind) {
        case 'text':
          return gov_(i, op, 'submitText', [title, description], value, gas);
        case 'parameter-change':
          return gov_(i, op, 'submitParameterChange', [title, description, c.names, c.values], value, gas);
        case 'treasury-spend':
          return gov_(i, op, 'submitTreasurySpend', [title, description, c.recipient, c.amount, c.vesting], value, gas);
        case 'model-approval':
          return gov_(i, op, 'submitModelApproval', [title, description, c.modelId, c.tier, c.dims, c.digest, c.size, c.digest, c.size], value, gas);
        case 'model-retirement':
          return gov_(i, op, 'submitModelRetirement', [title, description, c.modelId], value, gas);
      }
    };

    // ---- blocks and checks ----
    let prev = {
      supply: app.supply(),
      treasury: balanceOf(TREASURY),
      inflows: gov.treasury().totalInflows,
      compute: balanceOf(COMPUTE),
      staking: (() => {
        const x = app.staking.state.totals();
        return { rewards: x.totalUnclaimedRewards + x.totalCommission + x.dust, burned: x.burned };
      })(),
    };

    const produce = async (advanceSeconds: number) => {
      clockMs += advanceSeconds * 1000;
      const { head, included } = await node.driver.produceNext();
      stats.blocks++;
      const h = head.number;
      const now = head.timestamp;
      assert.equal(now, Math.floor(clockMs / 1000), `block ${h} time`);
      const epoch = epochOf(h);
      // The block's start: parameter changes due from its epoch.
      const due = pendingChanges.filter((c) => c.appliesAtEpoch <= epoch);
      pendingChanges = pendingChanges.filter((c) => c.appliesAtEpoch > epoch);
      const applyFailed = new Set<number>();
      for (const change of due) {
        if (changeProblem(change.changes, []) !== null) {
          applyFailed.add(change.proposalId);
          bump(stats.executions, 'parameter-change failed at its epoch');
          continue;
        }
        for (const c of change.changes) {
          mp.set(c.name, c.value);
          if (c.name === 'staking.epochLengthBlocks') anchor = { height: h, epoch };
          bump(stats.paramsApplied, c.name);
        }
      }
      // The transactions, in block order.
      for (const hash of included) {
        const s = sent.get(hash.toString('hex'));
        assert.ok(s, `block ${h} includes a transaction this test sent`);
        sent.delete(hash.toString('hex'));
        const receipt = chain.getTransactionReceipt(hash) as { status: string; gasUsed: string; effectiveGasPrice: string };
        const gasUsed = BigInt(receipt.gasUsed);
        const price = BigInt(receipt.effectiveGasPrice);
        credit(s.from, -gasUsed * price);
        credit(coinbase, gasUsed * (price - head.baseFeePerGas));
        const why = replay(s, now);
        const ok = receipt.status === '0x1';
        assert.equal(ok, why === null, `block ${h}: ${s.op.fn} ${JSON.stringify(s.op, (_, v) => (typeof v === 'bigint' ? v.toString() : v))} from ${s.from}: ${ok ? 'succeeded' : 'reverted'}, the model says ${why ?? 'success'}`);
        if (ok) {
          stats.succeeded++;
          credit(s.from, -s.value);
          if (s.op.fn === 'staking') credit(STAKING_ADDR, s.value);
          else credit(GOV, s.value);
        } else {
          stats.reverted++;
          bump(stats.reverts, why!);
        }
      }
      // The block's end.
      const inflows = gov.treasury().totalInflows;
      const treasuryBefore = prev.treasury + (inflows - prev.inflows);
      const end = endBlock(h, now, epoch, treasuryBefore);
      check(h, end, applyFailed, inflows);
    };

    const check = (h: number, end: { burned: bigint; paid: bigint; finished: MProposal[] }, applyFailed: Set<number>, inflows: bigint) => {
      const at = `at block ${h}`;
      // (1) Supply: every balance adds up to it, and it moved by what was minted less the base fee burned, slashes and burned deposits.
      let sum = 0n;
      for (const a of everyone) {
        const b = balanceOf(a, h);
        assert.ok(b >= 0n);
        sum += b;
      }
      const supply = app.supply();
      assert.equal(sum, supply, `supply ${at}`);
      const head = chain.head();
      const st = app.staking.state.totals();
      const rewards = st.totalUnclaimedRewards + st.totalCommission + st.dust;
      // Minted: the validators' rewards (held by staking), the treasury's share, the miners' share (held by compute: no miners here).
      const compute = balanceOf(COMPUTE, h);
      const minted = rewards - prev.staking.rewards + (inflows - prev.inflows) + (compute - prev.compute);
      const slashed = st.burned - prev.staking.burned;
      stats.slashed += slashed;
      assert.equal(supply - prev.supply, minted - slashed - BigInt(head.gasUsed) * head.baseFeePerGas - end.burned, `supply change ${at} (burned deposits ${end.burned})`);
      assert.equal(balanceOf(STAKING_ADDR, h), app.staking.state.moduleBalance(), `staking module balance ${at}`);
      // (2) The treasury's accounts.
      const tr = gov.treasury();
      const treasuryBalance = balanceOf(TREASURY, h);
      assert.equal(tr.balance, tr.totalInflows - tr.totalOutflows);
      assert.equal(treasuryBalance, tr.balance, `treasury balance and accounts ${at}`);
      assert.equal(treasuryBalance, prev.treasury + (inflows - prev.inflows) - end.paid, `treasury ${at}: inflows less the spends the model paid`);
      assert.equal(tr.outflows.spends ?? 0n, totals.spent, `treasury spends ${at}`);
      assert.equal(tr.spendsPaid, totals.spendsPaid, `spends paid ${at}`);
      assert.deepEqual(
        tr.pendingSpends,
        spends.map((s) => ({ ...s })),
        `pending spends ${at}`,
      );
      // (3) Deposits: held by the governance account, as the active proposals' totals and records; none lost.
      const g = gov.global;
      const govBalance = balanceOf(GOV, h);
      assert.equal(govBalance, g.depositsHeld, `governance account balance and depositsHeld ${at}`);
      assert.equal(g.depositsHeld, totals.held, `deposits held ${at}`);
      assert.equal(g.depositsBurned, totals.burned, `deposits burned ${at}`);
      assert.equal(g.depositsRefunded, totals.refunded, `deposits refunded ${at}`);
      assert.equal(totals.deposited, g.depositsHeld + g.depositsBurned + g.depositsRefunded, `every deposit held, burned or refunded ${at}`);
      const act = gov.activeProposals();
      assert.deepEqual(
        act.map((p) => p.id),
        active().map((p) => p.id),
        `active proposals ${at}`,
      );
      let sumTotals = 0n;
      let sumRecords = 0n;
      for (const p of act) {
        const m = proposals.get(p.id)!;
        sumTotals += p.totalDeposit;
        const records = gov.depositsOf(p.id);
        sumRecords += records.reduce((a, d) => a + d.amount, 0n);
        assert.equal(p.status, m.status, `proposal ${p.id} status ${at}`);
        assert.equal(p.totalDeposit, m.total, `proposal ${p.id} deposit ${at}`);
        assert.equal(p.depositEndTime, m.depositEndTime, `proposal ${p.id} deposit end ${at}`);
        assert.equal(p.votingEndTime, m.votingEndTime, `proposal ${p.id} voting end ${at}`);
        assert.equal(p.depositors, m.deposits.size);
        assert.equal(p.voters, m.votes.size);
        assert.deepEqual(new Map(records.map((d) => [d.depositor, d.amount])), m.deposits, `proposal ${p.id} deposit records ${at}`);
        assert.deepEqual(new Map(gov.votesOf(p.id).map((v) => [v.voter, OPTIONS.indexOf(v.option) + 1])), m.votes, `proposal ${p.id} votes ${at}`);
      }
      assert.equal(sumTotals, g.depositsHeld, `active proposals' deposits ${at}`);
      assert.equal(sumRecords, g.depositsHeld, `active proposals' deposit records ${at}`);
      // (4) Balances: fees, values, refunds and spends made every account's balance (refunded depositors got their deposits, recipients the parts paid).
      for (const a of everyone) {
        if (a === STAKING_ADDR || a === TREASURY || a === GOV || a === COMPUTE) continue;
        assert.equal(balanceOf(a, h), expected.get(a), `balance of ${a} ${at}`);
      }
      for (const r of RECIPIENTS) assert.equal(balanceOf(r, h), received.get(r) ?? 0n, `recipient ${r} ${at}`);
      // (5) Finished proposals: status, tally, deposits' fate and execution.
      for (const m of end.finished) {
        const p = gov.proposal(m.id)!;
        assert.equal(p.status, m.status, `proposal ${m.id} (${m.content.kind}) outcome ${at}: tally ${JSON.stringify(p.tally, (_, v) => (typeof v === 'bigint' ? v.toString() : v))}`);
        assert.equal(p.deposits, m.fate, `proposal ${m.id} deposits ${at}`);
        assert.equal(p.finalHeight, h);
        assert.deepEqual(p.tally, m.tally, `proposal ${m.id} tally ${at}`);
        assert.equal(p.bondedAtTally, m.bonded, `proposal ${m.id} bonded stake ${at}`);
        assert.equal(p.execution?.result, m.execution, `proposal ${m.id} execution ${at}: ${p.execution?.detail}`);
        assert.deepEqual(new Map(gov.depositsOf(m.id).map((d) => [d.depositor, d.amount])), m.deposits, `finished proposal ${m.id} deposit records`);
      }
      for (const id of applyFailed) assert.equal(gov.proposal(id)!.execution?.result, 'failed', `proposal ${id}: its change failed at its epoch`);
      // Parameters: pending changes, live values and the epoch anchor.
      assert.deepEqual(
        g.pendingChanges.map((c) => ({ ...c, changes: c.changes.map((x) => ({ ...x })) })),
        pendingChanges,
        `pending changes ${at}`,
      );
      for (const [name, value] of mp) assert.equal(app.live.value(name), value, `${name} ${at}`);
      assert.deepEqual(app.live.staking.epochAnchor, anchor, `epoch anchor ${at}`);
      assert.equal(g.nextProposalId, nextId, `next proposal id ${at}`);
      assert.deepEqual(app.staking.state.checkInvariants(), [], `staking invariants ${at}`);
      prev = { supply, treasury: treasuryBalance, inflows, compute, staking: { rewards, burned: st.burned } };
    };

    // ---- setup: delegators of the genesis validator, a second validator and its delegators ----
    const v0 = addr(0);
    for (const i of [1, 2, 3, 4]) await send(i, STAKING_ADDR, STAKING_ABI, { fn: 'staking', name: 'delegate' }, 'delegate', [v0], BigInt(50 + below(400)) * ETHER);
    await send(5, STAKING_ADDR, STAKING_ABI, { fn: 'staking', name: 'registerValidator' }, 'registerValidator', ['second', 500, 2_000, 300], BigInt(200 + below(300)) * ETHER);
    await produce(1);
    await send(6, STAKING_ADDR, STAKING_ABI, { fn: 'staking', name: 'delegate' }, 'delegate', [addr(5)], BigInt(50 + below(200)) * ETHER);
    await send(6, STAKING_ADDR, STAKING_ABI, { fn: 'staking', name: 'delegate' }, 'delegate', [v0], BigInt(10 + below(100)) * ETHER);
    await send(2, STAKING_ADDR, STAKING_ABI, { fn: 'staking', name: 'delegate' }, 'delegate', [addr(5)], BigInt(10 + below(100)) * ETHER);
    await produce(1);
    assert.equal(stats.reverted, 0, 'the delegations and the registration succeeded');
    assert.equal(app.staking.state.validators().length, 2);

    // ---- random operations ----
    /** Voters, the validators and delegators most often. */
    const VOTERS = [0, 0, 0, 1, 2, 3, 4, 5, 5, 6, 7, 8];
    const tokens = (lo: number, hi: number) => BigInt(lo + below(hi - lo + 1)) * ETHER + BigInt(below(1_000_000));
    const depositValue = (): bigint => {
      const r = below(10);
      if (r < 3) return 0n;
      if (r < 6) return tokens(1, 8);
      return rule('governance.minDeposit') + BigInt(below(5)) * ETHER;
    };
    const finished = () => [...proposals.values()].filter((p) => p.status !== 'deposit-period' && p.status !== 'voting-period');
    let modelSeq = 0;
    for (let op = 0; op < OPERATIONS; op++) {
      stats.operations++;
      const i = below(10);
      const r = below(100);
      if (r < 25) {
        // A proposal.
        const title = chance(3) ? '   ' : chance(3) ? 'x'.repeat(GOVERNANCE.maxTitleChars + 1) : `proposal ${op}`;
        const k = below(100);
        let c: Content;
        if (k < 20) c = { kind: 'text' };
        else if (k < 45) {
          if (chance(25)) c = { kind: 'parameter-change', ...pick(BAD_CHANGES) };
          else {
            const names = [...new Set(Array.from({ length: 1 + below(2) }, () => pick(Object.keys(SAFE_CHANGES))))];
            c = { kind: 'parameter-change', names, values: names.map((n) => pick(SAFE_CHANGES[n]!)) };
          }
        } else if (k < 75) {
          // Mostly the recipients, some dev accounts; a few the zero address, the treasury or another module's account (refused).
          const recipient = chance(80) ? pick(RECIPIENTS) : chance(60) ? addr(7 + below(3)) : pick([ZERO, TREASURY, GOV, STAKING_ADDR, COMPUTE]);
          const treasury = balanceOf(TREASURY);
          const amount = chance(5) ? 0n : chance(25) ? treasury + tokens(20, 200) : BigInt(1 + below(3_000_000)) * 10n ** 12n + BigInt(below(1_000));
          const vesting = chance(40) ? 0 : chance(90) ? 1 + below(5) : 7 + below(3);
          c = { kind: 'treasury-spend', recipient, amount, vesting };
        } else if (k < 88) {
          const bad = below(100);
          c = {
            kind: 'model-approval',
            modelId: bad < 5 ? 'Bad Id' : `prop-model-${modelSeq++}@v1.${below(3)}`,
            tier: bad >= 5 && bad < 10 ? 'Tepid' : pick(['Hot', 'Warm', 'Cold']),
            dims: bad >= 10 && bad < 15 ? 5_000 : 1 + below(1_024),
            digest: bad >= 15 && bad < 20 ? `0x${'0'.repeat(64)}` : `0x${(rand() | 1n).toString(16).padStart(64, '7')}`,
            size: bad >= 20 && bad < 25 ? 0n : BigInt(1 + below(1 << 20)),
          };
        } else {
          // Retirement: an unknown model (reverts), a genesis model, or one approved here.
          const known = [...approved];
          c = { kind: 'model-retirement', modelId: chance(40) ? `unknown-model-${op}@v1.0` : pick(known) };
        }
        await submitTx(i, c, title, depositValue(), chance(3) ? LOW_GAS : GAS);
      } else if (r < 50) {
        // A deposit: on an active proposal (some reach the minimum), a finished one, an unknown one; some of zero.
        const open = active();
        const done = finished();
        const roll = below(100);
        const target = roll < 75 && open.length > 0 ? pick(open) : roll < 90 && done.length > 0 ? pick(done) : undefined;
        const id = target ? BigInt(target.id) : BigInt(nextId + 3 + below(5));
        let value: bigint;
        if (chance(5)) value = 0n;
        else if (target && target.status === 'deposit-period' && chance(50)) value = rule('governance.minDeposit') - target.total + BigInt(below(3)) * ETHER;
        else value = tokens(1, 4);
        if (value <= 0n) value = 1n;
        await gov_(i, { fn: 'deposit', id }, 'deposit', [id], value);
      } else if (r < 95) {
        // A vote: mostly on proposals being voted, some in their deposit period, finished or unknown; a few bad options or with value.
        const voting = active().filter((p) => p.status === 'voting-period');
        const depositing = active().filter((p) => p.status === 'deposit-period');
        const done = finished();
        const roll = below(100);
        const target = roll < 75 && voting.length > 0 ? pick(voting) : roll < 85 && depositing.length > 0 ? pick(depositing) : roll < 95 && done.length > 0 ? pick(done) : undefined;
        const id = target ? BigInt(target.id) : BigInt(nextId + 3 + below(5));
        // The genesis validator votes on most proposals (its stake makes the quorum), others override it or add theirs.
        const voter = target && !target.votes.has(v0) && chance(60) ? 0 : pick(VOTERS);
        const option = chance(3) ? pick([0, 5]) : pick([1, 1, 1, 2, 3, 3, 4, 4]);
        await gov_(voter, { fn: 'vote', id, option }, 'vote', [id, option], chance(2) ? ETHER : 0n);
      } else if (r < 97) {
        await send(i, GOV, null, { fn: 'plain' }, 'plain transfer', [], ETHER);
      } else {
        // More stake: a delegation to either validator (the tally reads the stake at the voting end).
        await send(1 + below(8), STAKING_ADDR, STAKING_ABI, { fn: 'staking', name: 'delegate' }, 'delegate', [pick([v0, addr(5)])], tokens(5, 50));
      }
      // A block every few operations; time moves by 1..4 seconds, now and then by up to 25.
      if (chance(35) || op === OPERATIONS - 1) await produce(chance(8) ? 10 + below(16) : 1 + below(4));
    }
    // Everything sent is mined; then time runs until every proposal finished and the spends that can be paid are.
    while (mempool.stats().pending > 0) await produce(1);
    assert.equal(sent.size, 0, 'every transaction sent was mined');
    for (let k = 0; k < 40 && (active().length > 0 || spends.some((s) => s.amount - s.paid <= balanceOf(TREASURY))); k++) await produce(chance(50) ? 5 : 2);
    assert.equal(active().length, 0, 'every proposal finished');

    // Two parameter changes each valid alone, passed in the same block, that do not hold together (the
    // treasury's and the miners' largest share above 100%): the first is queued, the second fails.
    const minersMax = rule('staking.inferenceMinersShareMaxBps');
    const first = nextId;
    await submitTx(7, { kind: 'parameter-change', names: ['staking.treasuryShareBps'], values: [10_000n - minersMax] }, 'treasury share', rule('governance.minDeposit'));
    await submitTx(8, { kind: 'parameter-change', names: ['staking.inferenceMinersShareMaxBps'], values: [minersMax + 1n] }, 'miners share', rule('governance.minDeposit'));
    await produce(1);
    assert.deepEqual([proposals.get(first)?.status, proposals.get(first + 1)?.status], ['voting-period', 'voting-period']);
    for (const voter of [0, 1, 2, 3, 4, 5, 6]) for (const id of [first, first + 1]) await gov_(voter, { fn: 'vote', id: BigInt(id), option: 1 }, 'vote', [BigInt(id), 1], 0n);
    await produce(1);
    await produce(Number(rule('governance.votingPeriodSeconds')) + 1);
    // The pool orders the two by tip: whichever executes first (the lower id) is queued, the other fails.
    assert.deepEqual([proposals.get(first)?.execution, proposals.get(first + 1)?.execution], ['applied', 'failed']);
    for (let k = 0; k < 8; k++) await produce(1);
    const queued = proposals.get(first)!.content as Extract<Content, { kind: 'parameter-change' }>;
    assert.equal(app.live.value(queued.names[0]!), queued.values[0], 'the queued change applied at its epoch');
    assert.equal(gov.proposal(first + 1)!.execution?.result, 'failed');

    const seconds = ((performance.now() - started) / 1000).toFixed(1);
    const list = (m: Map<string, number>) => [...m].sort((a, b) => b[1] - a[1]).map(([k, v]) => `${k} ${v}`).join(', ');
    t.diagnostic(
      `seed ${seed}: ${stats.operations} operations, ${stats.sent} transactions (${stats.succeeded} succeeded, ${stats.reverted} reverted) in ${stats.blocks} blocks, ${seconds} s`,
    );
    t.diagnostic(`proposals ${nextId - 1} (${list(stats.kinds)}); outcomes: ${list(stats.outcomes)}`);
    t.diagnostic(`executions: ${list(stats.executions)}; parameters applied: ${list(stats.paramsApplied) || 'none'}; ${stats.spendParts} spend parts paid (${totals.spent} wei, ${totals.spendsPaid} spends complete, ${spends.length} waiting; ${stats.spendsWaited} part-blocks waited for the treasury)`);
    t.diagnostic(`tallies with two validators bonded: ${stats.talliesTwoValidators}; delegators' votes overriding their validator's: ${stats.overrides}`);
    t.diagnostic(`deposits: ${totals.deposited} wei, ${totals.refunded} refunded, ${totals.burned} burned; ${stats.slashed} wei slashed`);
    t.diagnostic(`reverts: ${list(stats.reverts)}`);
    assert.ok(stats.succeeded > stats.sent / 3, `succeeded: ${stats.succeeded} of ${stats.sent}`);
    for (const outcome of ['passed', 'rejected', 'vetoed', 'no-quorum', 'expired']) assert.ok((stats.outcomes.get(outcome) ?? 0) > 0, `some proposal ${outcome}`);
    for (const why of ['vote: deposit period', 'deposit: finished proposal', 'retirement: not approved or retiring', 'out of gas']) assert.ok((stats.reverts.get(why) ?? 0) > 0, `some revert: ${why}`);
    assert.ok(stats.spendParts > 0, 'some spend paid');
  });
});
