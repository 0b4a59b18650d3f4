// The user-facing surfaces of governance and the treasury on an in-process devnet (200 ms blocks,
// 10-block epochs, 6 s deposit and 4 s voting periods; dev account 0 is the only validator):
// svc_getParameterProposals, svc_getProposal, svc_getGovernanceParams and svc_getTreasuryInfo move
// as proposals are submitted, deposited, voted and carried out through viem; the explorer's
// /governance/* and /treasury routes answer the same facts in its style; the svcProposals
// subscription and the live feed's governance:proposals room receive each event in order; bad input
// is -32602 / -32001 on JSON-RPC and 400 / 404 on the explorer (docs/rpc.md, docs/explorer.md,
// docs/realtime.md).
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { io as connect, type Socket } from 'socket.io-client';
import { createPublicClient, createWalletClient, getAddress, http, parseEventLogs, type Abi, type Hex, type PublicClient, type TransactionReceipt } from 'viem';
import { privateKeyToAccount, type PrivateKeyAccount } from 'viem/accounts';
import WebSocket from 'ws';
import { startNode, type RunningNode } from '../src/node.js';
import { governance as defaultGovernance, staking as defaultStaking, system, type GovernanceParams, type StakingParams } from '../src/params.js';
import { governable } from '../src/modules/governable.js';
import { devPrivateKeys } from './support/dev-accounts.js';
import { explorerClient } from './support/explorer-client.js';
import { JsonRpcError, rpc } from './support/json-rpc.js';
import { devnetConfig } from './support/node-config.js';
import { repoRoot } from './support/repo.js';
import { svcDevnet } from './support/viem-chain.js';

const GOV_ABI = JSON.parse(readFileSync(path.join(repoRoot(), 'abi', 'governance.json'), 'utf8')) as Abi;
const GOV = system.governanceAddress as Hex;
const TREASURY = getAddress(system.treasuryAddress);
const ETHER = 10n ** 18n;
const GOVERNANCE: GovernanceParams = { ...defaultGovernance, votingPeriodSeconds: 4, depositPeriodSeconds: 6 };
const STAKING: StakingParams = { ...defaultStaking, epochLengthBlocks: 10 };

const accounts: PrivateKeyAccount[] = devPrivateKeys(6).map((k) => privateKeyToAccount(k));
/** The genesis validator: its vote is all the bonded stake. */
const validator = accounts[0]!;
const proposer = accounts[1]!;
const depositor = accounts[2]!;
/** Receives the treasury spend (a fresh address, so its balance is the spend). */
const recipient = getAddress(`0x${'5e'.repeat(20)}`);

type Obj = Record<string, any>;

let node: RunningNode;
let dataDir: string;
let client: PublicClient;
let base: string;
let ws: WebSocket;
let subscription: string | undefined;
const notifications: Obj[] = [];
let socket: Socket;
const roomEvents: { payload: Obj; room: string }[] = [];

const { ok, refused } = explorerClient(() => base);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function until<T>(what: string, probe: () => Promise<T | undefined | false>, timeoutMs = 30_000): Promise<T> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const v = await probe();
    if (v !== undefined && v !== false) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await sleep(100);
  }
}

async function gov(from: PrivateKeyAccount, functionName: string, args: unknown[], value = 0n): Promise<TransactionReceipt> {
  const wallet = createWalletClient({ chain: svcDevnet(node.rpcUrl), transport: http(node.rpcUrl), account: from });
  const hash = await wallet.writeContract({ address: GOV, abi: GOV_ABI, functionName, args, value, gas: 1_000_000n } as never);
  const r = await client.waitForTransactionReceipt({ hash, pollingInterval: 100 });
  assert.equal(r.status, 'success', `${functionName} mined`);
  return r;
}

function submittedId(r: TransactionReceipt): number {
  const [e] = parseEventLogs({ abi: GOV_ABI, logs: r.logs, eventName: 'ProposalSubmitted' });
  assert.ok(e, 'ProposalSubmitted logged');
  return Number((e.args as { proposalId: bigint }).proposalId);
}

/** An svc_* call that must fail with `code`; returns the message. */
async function rpcFails(method: string, params: unknown[], code: number): Promise<string> {
  try {
    await rpc(node.rpcUrl, method, params);
  } catch (err) {
    assert.ok(err instanceof JsonRpcError, String(err));
    assert.equal(err.code, code, `${method}(${JSON.stringify(params)}): ${err.message}`);
    return err.message;
  }
  assert.fail(`${method}(${JSON.stringify(params)}) answered`);
}

// ---- shapes: every field present, with its documented type ----

const checks: Record<string, (v: unknown) => boolean> = {
  hex: (v) => typeof v === 'string' && /^0x(0|[1-9a-f][0-9a-f]*)$/.test(v),
  dec: (v) => typeof v === 'string' && /^(0|[1-9][0-9]*)$/.test(v),
  int: (v) => Number.isSafeInteger(v),
  num: (v) => typeof v === 'number' && Number.isFinite(v),
  str: (v) => typeof v === 'string',
  bool: (v) => typeof v === 'boolean',
  obj: (v) => typeof v === 'object' && v !== null && !Array.isArray(v),
  arr: (v) => Array.isArray(v),
  addr: (v) => typeof v === 'string' && /^0x[0-9a-fA-F]{40}$/.test(v) && getAddress(v) === v,
  null: (v) => v === null,
};

/** Checks that `o` has every field of `spec` ("hex", "int|null", ...) and no other. */
function shape(o: unknown, spec: Record<string, string>, where: string): asserts o is Obj {
  assert.ok(checks.obj!(o), `${where} is an object`);
  const obj = o as Obj;
  assert.deepEqual(Object.keys(obj).sort(), Object.keys(spec).sort(), `${where}: fields`);
  for (const [k, types] of Object.entries(spec)) {
    assert.ok(types.split('|').some((t) => checks[t]!(obj[k])), `${where}.${k} = ${JSON.stringify(obj[k])} is not ${types}`);
  }
}

/** The two ways the surfaces write numbers: JSON-RPC's 0x quantities, the explorer's decimal strings and integers. */
type Style = { amount: string; quantity: string };
const RPC: Style = { amount: 'hex', quantity: 'hex' };
const EXPLORER: Style = { amount: 'dec', quantity: 'int' };

function proposalShape(p: unknown, s: Style, where: string, full = true): asserts p is Obj {
  const spec: Record<string, string> = {
    id: 'int',
    kind: 'str',
    title: 'str',
    proposer: 'addr',
    status: 'str',
    content: 'obj',
    submitBlock: s.quantity,
    submitTime: s.quantity,
    depositEndTime: s.quantity,
    totalDeposit: s.amount,
    minDeposit: s.amount,
    depositors: 'int',
    votingStartBlock: `${s.quantity}|null`,
    votingStartTime: `${s.quantity}|null`,
    votingEndTime: `${s.quantity}|null`,
    tally: 'obj',
    rules: 'obj',
    voters: 'int',
    finalBlock: `${s.quantity}|null`,
    finalTime: `${s.quantity}|null`,
    deposits: 'str|null',
    execution: 'obj|null',
  };
  if (full) spec.description = 'str';
  shape(p, spec, where);
  shape(
    p.tally,
    { yes: s.amount, abstain: s.amount, no: s.amount, noWithVeto: s.amount, totalVoted: s.amount, bonded: `${s.amount}|null`, final: 'bool', percentages: 'obj', turnout: 'num|null' },
    `${where}.tally`,
  );
  shape(p.tally.percentages, { yes: 'num', abstain: 'num', no: 'num', noWithVeto: 'num' }, `${where}.tally.percentages`);
  shape(p.rules, { quorum: 'num', threshold: 'num', vetoThreshold: 'num' }, `${where}.rules`);
  if (p.execution !== null) shape(p.execution, { block: s.quantity, result: 'str', detail: 'str', appliesAtEpoch: `${s.quantity}|null` }, `${where}.execution`);
  switch (p.kind) {
    case 'parameter-change':
      shape(p.content, { changes: 'arr' }, `${where}.content`);
      for (const c of p.content.changes) shape(c, { name: 'str', currentValue: `${s.amount}|null`, newValue: s.amount, unit: 'str|null' }, `${where}.content.changes[]`);
      break;
    case 'treasury-spend':
      shape(p.content, { recipient: 'addr', amount: s.amount, vestingEpochs: 'int' }, `${where}.content`);
      break;
    case 'text':
      shape(p.content, {}, `${where}.content`);
      break;
    default:
      assert.fail(`${where}: unexpected kind ${p.kind}`);
  }
}

function treasuryShape(t: unknown, s: Style, where: string): asserts t is Obj {
  shape(
    t,
    {
      address: 'addr',
      balance: s.amount,
      inflows: 'obj',
      totalInflows: s.amount,
      outflows: 'obj',
      totalOutflows: s.amount,
      pendingSpends: 'arr',
      pendingSpendsTotal: s.amount,
      spendsPaid: 'int',
      blockNumber: s.quantity,
    },
    where,
  );
  assert.equal(t.address, TREASURY);
  assert.ok(checks[s.amount]!(t.inflows.blockRewards) && checks[s.amount]!(t.inflows.taskFees), `${where}.inflows by source`);
  assert.ok(checks[s.amount]!(t.outflows.spends), `${where}.outflows.spends`);
  for (const p of t.pendingSpends) {
    shape(p, { proposalId: 'int', recipient: 'addr', amount: s.amount, paid: s.amount, parts: 'int', partsPaid: 'int', nextEpoch: s.quantity }, `${where}.pendingSpends[]`);
  }
}

function paramsShape(g: unknown, s: Style, where: string): asserts g is Obj {
  shape(g, { blockNumber: s.quantity, epoch: s.quantity, params: 'arr' }, where);
  assert.deepEqual(
    g.params.map((p: Obj) => p.name),
    governable.map((x) => `${x.module}.${x.key}`),
  );
  for (const p of g.params) {
    shape(p, { name: 'str', value: s.amount, min: s.amount, max: s.amount, unit: 'str', pending: 'arr' }, `${where}.params[${p.name}]`);
    for (const c of p.pending) shape(c, { proposalId: 'int', value: s.amount, appliesAtEpoch: s.quantity }, `${where}.params[${p.name}].pending[]`);
  }
}

const active = async (filter?: Obj): Promise<Obj[]> => rpc<Obj[]>(node.rpcUrl, 'svc_getParameterProposals', filter === undefined ? [] : [filter]);
const proposal = async (id: number | string): Promise<Obj> => rpc<Obj>(node.rpcUrl, 'svc_getProposal', [id]);
const treasury = async (): Promise<Obj> => rpc<Obj>(node.rpcUrl, 'svc_getTreasuryInfo');
const params = async (): Promise<Obj> => rpc<Obj>(node.rpcUrl, 'svc_getGovernanceParams');

/** The treasury's figures and eth_getBalance of its address at the block they were read at. */
async function treasuryWithBalance(): Promise<{ info: Obj; balance: string }> {
  const info = await treasury();
  return { info, balance: await rpc<string>(node.rpcUrl, 'eth_getBalance', [TREASURY, info.blockNumber]) };
}

before(async () => {
  dataDir = mkdtempSync(path.join(os.tmpdir(), 'svc-governance-surfaces-'));
  node = await startNode(devnetConfig(dataDir), { governanceParams: GOVERNANCE, stakingParams: STAKING });
  base = `${node.explorerUrl}/api/v1`;
  client = createPublicClient({ chain: svcDevnet(node.rpcUrl), transport: http(node.rpcUrl), pollingInterval: 100 }) as PublicClient;

  ws = new WebSocket(node.wsUrl);
  await new Promise<void>((resolve, reject) => {
    ws.once('open', () => resolve());
    ws.once('error', reject);
  });
  const answers: Obj[] = [];
  ws.on('message', (data) => {
    const m = JSON.parse(String(data)) as Obj;
    if (m.method === 'eth_subscription' && m.params.subscription === subscription) notifications.push(m.params.result);
    else answers.push(m);
  });
  ws.send(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_subscribe', params: ['svcProposals'] }));
  const answer = await until('the subscription id', async () => answers.find((m) => m.id === 1), 5_000);
  assert.equal(answer.error, undefined, JSON.stringify(answer.error));
  subscription = answer.result as string;

  socket = connect(node.explorerUrl, { transports: ['websocket'] });
  await new Promise<void>((resolve, reject) => {
    socket.once('connect', () => resolve());
    socket.once('connect_error', reject);
  });
  socket.on('proposal_event', (payload: Obj, room: string) => roomEvents.push({ payload, room }));
  const ack = (await socket.timeout(5_000).emitWithAck('join', 'governance:proposals')) as Obj;
  assert.deepEqual(ack, { ok: true, data: { room: 'governance:proposals' } });
});

after(async () => {
  ws?.close();
  socket?.disconnect();
  await node?.stop();
  rmSync(dataDir, { recursive: true, force: true });
});

describe('svc_getTreasuryInfo: the treasury moves with the chain', () => {
  it('grows every block by the reward share, equal to eth_getBalance of its address at the same block', async () => {
    const first = await treasuryWithBalance();
    treasuryShape(first.info, RPC, 'svc_getTreasuryInfo');
    assert.equal(BigInt(first.balance), BigInt(first.info.balance));
    await until('three more blocks', async () => BigInt(await rpc<string>(node.rpcUrl, 'eth_blockNumber')) >= BigInt(first.info.blockNumber) + 3n);
    const later = await treasuryWithBalance();
    assert.equal(BigInt(later.balance), BigInt(later.info.balance));
    assert.ok(BigInt(later.info.blockNumber) > BigInt(first.info.blockNumber));
    assert.ok(BigInt(later.info.balance) > BigInt(first.info.balance), 'the balance grew');
    assert.ok(BigInt(later.info.inflows.blockRewards) > BigInt(first.info.inflows.blockRewards), 'block rewards flowed in');
    // The module's accounts explain the account's balance.
    assert.equal(BigInt(later.info.totalInflows) - BigInt(later.info.totalOutflows), BigInt(later.info.balance));
    assert.deepEqual(later.info.pendingSpends, []);
  });

  it('/treasury answers the same in the explorer style', async () => {
    const t = await ok('/treasury');
    treasuryShape(t, EXPLORER, '/treasury');
    const balance = await rpc<string>(node.rpcUrl, 'eth_getBalance', [TREASURY, `0x${t.blockNumber.toString(16)}`]);
    assert.equal(BigInt(balance), BigInt(t.balance));
    assert.equal(BigInt(t.totalInflows) - BigInt(t.totalOutflows), BigInt(t.balance));
  });
});

describe('svc_getGovernanceParams and /governance/params', () => {
  it('list every governable parameter with its value, range, unit and no pending change', async () => {
    const g = await params();
    paramsShape(g, RPC, 'svc_getGovernanceParams');
    const grace = g.params.find((p: Obj) => p.name === 'governance.modelRetirementGraceBlocks');
    assert.deepEqual(grace, { name: 'governance.modelRetirementGraceBlocks', value: '0x64', min: '0x0', max: '0xf4240', unit: 'blocks', pending: [] });
    const e = await ok('/governance/params');
    paramsShape(e, EXPLORER, '/governance/params');
    assert.equal(e.params.find((p: Obj) => p.name === 'governance.minDeposit').value, (10n * ETHER).toString());
  });
});

/** The parameter-change proposal driven through its whole life. */
let changeId: number;

describe('a parameter change through svc_getParameterProposals and svc_getProposal', () => {
  it('appears in its deposit period when submitted', async () => {
    assert.deepEqual(await active(), []);
    const r = await gov(proposer, 'submitParameterChange', ['Shorter retirement grace', 'Miners need 50 blocks to finish.', ['governance.modelRetirementGraceBlocks'], [50n]]);
    changeId = submittedId(r);
    const list = await active();
    assert.equal(list.length, 1);
    const p = list[0]!;
    proposalShape(p, RPC, 'svc_getParameterProposals[0]');
    assert.equal(p.id, changeId);
    assert.equal(p.kind, 'parameter-change');
    assert.equal(p.status, 'deposit-period');
    assert.equal(p.proposer, proposer.address);
    assert.equal(p.submitBlock, `0x${r.blockNumber.toString(16)}`);
    assert.deepEqual(p.content.changes, [{ name: 'governance.modelRetirementGraceBlocks', currentValue: '0x64', newValue: '0x32', unit: 'blocks' }]);
    assert.equal(p.totalDeposit, '0x0');
    assert.equal(p.minDeposit, `0x${(10n * ETHER).toString(16)}`);
    assert.equal(BigInt(p.depositEndTime) - BigInt(p.submitTime), 6n);
    assert.equal(p.votingStartTime, null);
    assert.equal(p.execution, null);
    assert.deepEqual(p.rules, { quorum: 33.4, threshold: 50, vetoThreshold: 33.4 });
    assert.deepEqual(await proposal(changeId), await proposal(`0x${changeId.toString(16)}`), 'a number and a 0x quantity name the same proposal');
    assert.deepEqual(await active({ status: 'deposit-period' }), list);
    assert.deepEqual(await active({ status: 'voting-period' }), []);
    assert.deepEqual(await active({ kind: 'treasury-spend' }), []);
  });

  it('goes to its voting period once deposited, and counts the vote', async () => {
    await gov(depositor, 'deposit', [BigInt(changeId)], 10n * ETHER);
    let p = (await active())[0]!;
    assert.equal(p.status, 'voting-period');
    assert.equal(p.totalDeposit, `0x${(10n * ETHER).toString(16)}`);
    assert.equal(p.depositors, 1);
    assert.equal(BigInt(p.votingEndTime) - BigInt(p.votingStartTime), 4n);
    assert.equal(p.tally.final, false);
    assert.equal(p.tally.totalVoted, '0x0');
    assert.ok(BigInt(p.tally.bonded) > 0n, 'the bonded stake the quorum is measured on');
    assert.equal(p.tally.turnout, 0);

    await gov(validator, 'vote', [BigInt(changeId), 1]);
    p = await proposal(changeId);
    proposalShape(p, RPC, 'svc_getProposal');
    assert.equal(p.voters, 1);
    assert.equal(p.tally.yes, p.tally.bonded, 'the only validator voted all the bonded stake yes');
    assert.deepEqual(p.tally.percentages, { yes: 100, abstain: 0, no: 0, noWithVeto: 0 });
    assert.equal(p.tally.turnout, 100);
  });

  it('leaves the active list once its vote ends, passed and carried out from the next epoch', async () => {
    const done = await until('the end of the vote', async () => {
      const p = await proposal(changeId);
      return p.status === 'voting-period' ? undefined : p;
    });
    assert.deepEqual(await active(), []);
    proposalShape(done, RPC, 'svc_getProposal (passed)');
    assert.equal(done.status, 'passed');
    assert.equal(done.tally.final, true);
    assert.equal(done.deposits, 'refunded');
    assert.equal(done.execution.result, 'applied');
    assert.equal(done.execution.block, done.finalBlock);
    const appliesAt = BigInt(done.execution.appliesAtEpoch);

    // Until that epoch the change waits in svc_getGovernanceParams; from it the value is the new one.
    const g = await params();
    const grace = g.params.find((p: Obj) => p.name === 'governance.modelRetirementGraceBlocks');
    if (BigInt(g.epoch) < appliesAt) {
      assert.deepEqual(grace.pending, [{ proposalId: changeId, value: '0x32', appliesAtEpoch: done.execution.appliesAtEpoch }]);
      assert.equal(grace.value, '0x64');
    }
    await until('the change to apply', async () => {
      const now = await params();
      const x = now.params.find((p: Obj) => p.name === 'governance.modelRetirementGraceBlocks');
      return x.value === '0x32' && x.pending.length === 0 && BigInt(now.epoch) >= appliesAt;
    });
  });
});

/** The treasury spend and a text proposal. */
let spendId: number;
let textId: number;
const SPEND = ETHER / 2n;

describe('a treasury spend: pending, then an outflow', () => {
  it('shows the spend pending once passed, paid in parts, then counted as an outflow', async () => {
    const r = await gov(proposer, 'submitTreasurySpend', ['Audit', 'Pay the auditors in two parts.', recipient, SPEND, 2], 10n * ETHER);
    spendId = submittedId(r);
    const p = (await active({ kind: 'treasury-spend' }))[0]!;
    proposalShape(p, RPC, 'svc_getParameterProposals (spend)');
    assert.equal(p.status, 'voting-period', 'the deposit sent with the submission opens the vote');
    assert.deepEqual(p.content, { recipient, amount: `0x${SPEND.toString(16)}`, vestingEpochs: 2 });
    await gov(validator, 'vote', [BigInt(spendId), 1]);

    const pending = await until('the spend to be pending', async () => {
      const t = await treasury();
      return t.pendingSpends.find((s: Obj) => s.proposalId === spendId) as Obj | undefined;
    });
    assert.equal(pending.recipient, recipient);
    assert.equal(pending.amount, `0x${SPEND.toString(16)}`);
    assert.equal(pending.parts, 2);
    assert.ok(BigInt(pending.paid) < SPEND);

    const paid = await until('the spend to be paid', async () => {
      const { info } = await treasuryWithBalance();
      return info.pendingSpends.length === 0 && info.spendsPaid === 1 ? info : undefined;
    });
    treasuryShape(paid, RPC, 'svc_getTreasuryInfo (paid)');
    assert.equal(BigInt(paid.outflows.spends), SPEND);
    assert.equal(BigInt(paid.totalOutflows), SPEND);
    assert.equal(BigInt(paid.totalInflows) - BigInt(paid.totalOutflows), BigInt(paid.balance));
    assert.equal(await client.getBalance({ address: recipient }), SPEND);
  });

  it('a text proposal of every kind is listed with its kind', async () => {
    textId = submittedId(await gov(proposer, 'submitText', ['Signal', 'Say yes to more tests.']));
    const list = await active();
    assert.deepEqual(
      list.map((p) => [p.id, p.kind]),
      [[textId, 'text']],
    );
    proposalShape(list[0], RPC, 'svc_getParameterProposals (text)');
  });
});

describe('bad input', () => {
  it('JSON-RPC: a malformed id is -32602, an unknown one -32001', async () => {
    for (const bad of ['0xzz', '12', -1, 1.5, {}, [], true, '0x1' + '0'.repeat(16)]) {
      assert.match(await rpcFails('svc_getProposal', [bad], -32602), /invalid argument 0/);
    }
    assert.match(await rpcFails('svc_getProposal', [], -32602), /missing value for required argument 0/);
    assert.match(await rpcFails('svc_getProposal', [1, 2], -32602), /too many arguments/);
    assert.match(await rpcFails('svc_getProposal', [999], -32001), /proposal 999 not found/);
    await rpcFails('svc_getProposal', ['0x3e7'], -32001);
    await rpcFails('svc_getProposal', [0], -32001);
    await rpcFails('svc_getProposal', ['0xffffffffffffffff'], -32001);
    for (const bad of [{ status: 'passed' }, { status: 7 }, { kind: 'poll' }, { other: 1 }, 'voting-period', [1]]) {
      await rpcFails('svc_getParameterProposals', [bad], -32602);
    }
    await rpcFails('svc_getTreasuryInfo', [1], -32602);
    await rpcFails('svc_getGovernanceParams', [1], -32602);
  });

  it('explorer: a bad id, status, kind or cursor is 400, an unknown proposal 404', async () => {
    for (const route of ['/governance/proposals/abc', '/governance/proposals/0', '/governance/proposals/1.5', '/governance/proposals/-1', '/governance/proposals/99999999999999999999']) {
      await refused(route, 400);
    }
    await refused('/governance/proposals?status=open', 400);
    await refused('/governance/proposals?kind=poll', 400);
    await refused('/governance/proposals?limit=0', 400);
    await refused('/governance/proposals?cursor=bm90LWEtY3Vyc29y', 400);
    await refused(`/governance/proposals/${changeId}/votes?cursor=${Buffer.from('o:00').toString('base64url')}`, 400);
    for (const route of ['/governance/proposals/999', '/governance/proposals/999/votes', '/governance/proposals/999/deposits']) {
      assert.match(await refused(route, 404), /proposal 999 not found/);
    }
  });
});

describe('the explorer: /governance/proposals and its sub-routes', () => {
  it('lists every proposal newest first, paginated and filtered', async () => {
    const all = await ok('/governance/proposals');
    shape(all, { items: 'arr', next: 'str|null', prev: 'str|null' }, '/governance/proposals');
    assert.deepEqual(
      all.items.map((p: Obj) => p.id),
      [textId, spendId, changeId],
    );
    for (const p of all.items) proposalShape(p, EXPLORER, '/governance/proposals[]', false);
    assert.equal(all.next, null);

    const first = await ok('/governance/proposals?limit=2');
    assert.deepEqual(first.items.map((p: Obj) => p.id), [textId, spendId]);
    assert.equal(first.prev, null);
    const second = await ok(`/governance/proposals?limit=2&cursor=${first.next}`);
    assert.deepEqual(second.items.map((p: Obj) => p.id), [changeId]);
    assert.equal(second.next, null);
    const back = await ok(`/governance/proposals?limit=2&cursor=${second.prev}`);
    assert.deepEqual(back.items.map((p: Obj) => p.id), [textId, spendId]);

    assert.deepEqual((await ok('/governance/proposals?status=passed')).items.map((p: Obj) => p.id), [spendId, changeId]);
    // The text proposal never gets a deposit: by now it may have expired.
    const [text] = (await ok('/governance/proposals?kind=text')).items as Obj[];
    assert.equal(text!.id, textId);
    assert.deepEqual((await ok(`/governance/proposals?status=${text!.status}&kind=text`)).items.map((p: Obj) => p.id), [textId]);
    assert.deepEqual((await ok('/governance/proposals?kind=parameter-change')).items.map((p: Obj) => p.id), [changeId]);
    assert.deepEqual((await ok('/governance/proposals?status=expired')).items, []);
  });

  it('one proposal in full, as svc_getProposal in the explorer style', async () => {
    const e = await ok(`/governance/proposals/${changeId}`);
    proposalShape(e, EXPLORER, '/governance/proposals/{id}');
    const r = await proposal(changeId);
    assert.equal(e.description, 'Miners need 50 blocks to finish.');
    assert.equal(e.status, r.status);
    assert.equal(e.submitBlock, Number(BigInt(r.submitBlock)));
    assert.equal(e.totalDeposit, BigInt(r.totalDeposit).toString());
    assert.equal(e.tally.yes, BigInt(r.tally.yes).toString());
    assert.deepEqual(e.tally.percentages, r.tally.percentages);
    assert.deepEqual(e.content.changes[0], { name: 'governance.modelRetirementGraceBlocks', currentValue: '50', newValue: '50', unit: 'blocks' });
    assert.equal(e.execution.appliesAtEpoch, Number(BigInt(r.execution.appliesAtEpoch)));
  });

  it('votes (voter, option, block) and deposits (depositor, amount), paginated', async () => {
    const votes = await ok(`/governance/proposals/${changeId}/votes`);
    shape(votes, { items: 'arr', next: 'str|null', prev: 'str|null' }, 'votes');
    assert.equal(votes.items.length, 1);
    shape(votes.items[0], { voter: 'addr', option: 'str', block: 'int' }, 'votes[0]');
    assert.equal(votes.items[0].voter, validator.address);
    assert.equal(votes.items[0].option, 'yes');
    const deposits = await ok(`/governance/proposals/${changeId}/deposits?limit=1`);
    shape(deposits, { items: 'arr', next: 'str|null', prev: 'str|null' }, 'deposits');
    assert.deepEqual(deposits.items, [{ depositor: depositor.address, amount: (10n * ETHER).toString() }]);
    assert.equal(deposits.next, null);
    assert.deepEqual((await ok(`/governance/proposals/${textId}/votes`)).items, []);
  });
});

describe('svcProposals and the governance:proposals room', () => {
  const lifecycle = ['submitted', 'deposit', 'voting-started', 'vote', 'finished', 'executed', 'param-changed'];

  it('svcProposals sends each event of each block, in order, as JSON-RPC writes numbers', async () => {
    const mine = () => notifications.filter((n) => n.proposalId === changeId);
    await until('the change events', async () => mine().some((n) => n.event === 'param-changed'), 5_000);
    assert.deepEqual(
      mine().map((n) => n.event),
      lifecycle,
    );
    for (const n of notifications) {
      assert.ok(checks.hex!(n.blockNumber), `blockNumber ${n.blockNumber}`);
      assert.equal(typeof n.status, 'string');
    }
    const blocks = notifications.map((n) => BigInt(n.blockNumber));
    assert.deepEqual(blocks, [...blocks].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0)), 'block order');
    const [submitted, deposit, started, vote, finished, executed, changed] = mine();
    assert.deepEqual(submitted, {
      event: 'submitted',
      proposalId: changeId,
      status: 'deposit-period',
      blockNumber: submitted!.blockNumber,
      proposer: proposer.address,
      kind: 'parameter-change',
      title: 'Shorter retirement grace',
    });
    assert.equal(deposit!.depositor, depositor.address);
    assert.equal(deposit!.amount, `0x${(10n * ETHER).toString(16)}`);
    assert.equal(started!.status, 'voting-period');
    assert.ok(checks.hex!(started!.votingEndTime));
    assert.equal(vote!.voter, validator.address);
    assert.equal(vote!.option, 'yes');
    assert.equal(finished!.status, 'passed');
    assert.equal(finished!.deposits, 'refunded');
    assert.ok(checks.hex!(finished!.tally.yes));
    assert.equal(executed!.result, 'applied');
    assert.equal(changed!.name, 'governance.modelRetirementGraceBlocks');
    assert.equal(changed!.newValue, '0x32');
    assert.equal(changed!.oldValue, '0x64');
    // The spend's events: its parts paid.
    const paid = notifications.filter((n) => n.proposalId === spendId && n.event === 'spend-paid');
    assert.deepEqual(
      paid.map((n) => [n.part, n.parts]),
      [
        [1, 2],
        [2, 2],
      ],
    );
    assert.equal(paid[1]!.recipient, recipient);
  });

  it('the room receives the same events in the explorer style', async () => {
    await until('the room events', async () => roomEvents.filter((e) => e.payload.proposalId === changeId).length >= lifecycle.length, 10_000);
    assert.ok(roomEvents.every((e) => e.room === 'governance:proposals'));
    const mine = roomEvents.filter((e) => e.payload.proposalId === changeId).map((e) => e.payload);
    assert.deepEqual(
      mine.map((e) => e.event),
      lifecycle,
    );
    const rpcSide = notifications.filter((n) => n.proposalId === changeId);
    for (let i = 0; i < mine.length; i++) assert.equal(mine[i]!.blockNumber, Number(BigInt(rpcSide[i]!.blockNumber)));
    assert.equal(mine[1]!.amount, (10n * ETHER).toString());
    // Both started before the first proposal; the room may be a block behind (it waits for the indexer).
    const n = Math.min(roomEvents.length, notifications.length);
    assert.deepEqual(
      roomEvents.slice(0, n).map((e) => [e.payload.event, e.payload.proposalId]),
      notifications.slice(0, n).map((x) => [x.event, x.proposalId]),
      'the room and the subscription saw the same events',
    );
  });

  it('svcProposals takes no option', async () => {
    const reply = await new Promise<Obj>((resolve) => {
      const onMessage = (data: WebSocket.RawData) => {
        const m = JSON.parse(String(data)) as Obj;
        if (m.id !== 2) return;
        ws.off('message', onMessage);
        resolve(m);
      };
      ws.on('message', onMessage);
      ws.send(JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'eth_subscribe', params: ['svcProposals', {}] }));
    });
    assert.equal(reply.error?.code, -32602);
  });
});
