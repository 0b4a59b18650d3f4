// The explorer's chain pages against a devnet where each thing happened (support/chain-pages-activity.ts):
// compute (models, miners, open tasks, accepted proofs with their spot-check state, one task, proof
// and miner), ERC-4337 user operations (the list, one operation with its logs, the bundle's
// transaction page, the sender's address page), a dormant account's rent, and each validator's
// signed and missed blocks over the window with the node's peers. The REST routes the pages read
// are checked against the JSON-RPC answers; every page, at 390 px and 1280 px, shows the JSON-RPC
// answers' values, without console errors, error alerts or horizontal page scroll.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import { chromium, type Browser, type Locator, type Page } from 'playwright-core';
import { getAddress } from 'viem';
import { WEB_DIR } from '../src/explorer/web.js';
import { startChainPagesActivity, STAKING, type ChainPagesActivity } from './support/chain-pages-activity.js';
import { explorerClient } from './support/explorer-client.js';
import { rpc } from './support/json-rpc.js';

// The browser's globals, for the functions page.evaluate runs there (the project compiles without the DOM lib).
declare const document: any;

const CHROMIUM = process.env['SVC_CHROMIUM_PATH'] ?? '/usr/bin/chromium';
const VIEWPORTS = [
  { width: 390, height: 844 },
  { width: 1280, height: 900 },
];

let chain: ChainPagesActivity;
let browser: Browser;
const { ok, refused } = explorerClient(() => `${chain.explorerUrl}/api/v1`);
const call = <T = any>(method: string, params: unknown[] = []) => rpc<T>(chain.rpcUrl, method, params);

/** Digits grouped by thousands, as the page writes counts. */
const grouped = (v: bigint | number | string) => BigInt(v).toString().replace(/\B(?=(\d{3})+(?!\d))/g, ',');
/** The exact amount an <Eth> shows on hover. */
const weiTitle = (v: bigint | string) => `${grouped(v)} wei`;

/** The <dd> of the fact labelled `label` (inside `scope`). */
function fact(scope: Page | Locator, label: string): Locator {
  return scope.locator('.facts > div', { has: scope.locator('dt', { hasText: new RegExp(`^${label.replace(/[()/]/g, '\\$&')}$`) }) }).locator('dd');
}

async function text(l: Locator): Promise<string> {
  return ((await l.textContent()) ?? '').trim();
}

/**
 * Opens `url` at each viewport until the chain held still around the load (`read` answered the same
 * before and after it), then runs `check` with that answer; each viewport: no console error, no
 * error alert, no horizontal page scroll.
 */
async function eachViewport<T>(url: string, ready: string, read: () => Promise<T>, check: (page: Page, answer: T) => Promise<void>): Promise<void> {
  for (const viewport of VIEWPORTS) {
    const context = await browser.newContext({ viewport });
    const page = await context.newPage();
    const errors: string[] = [];
    page.on('console', (m) => {
      if (m.type() === 'error') errors.push(`${page.url()}: ${m.text()}`);
    });
    page.on('pageerror', (e) => errors.push(`${page.url()}: ${e.message}`));
    let answer: T | undefined;
    for (let attempt = 0; answer === undefined; attempt++) {
      const before = await read();
      await page.goto(`${chain.explorerUrl}${url}`);
      await page.getByText(ready, { exact: false }).first().waitFor({ timeout: 10_000 });
      await page.waitForFunction(() => document.querySelector('[aria-busy="true"]') === null, null, { timeout: 10_000 });
      if (isDeepStrictEqual(before, await read())) answer = before;
      else assert.ok(attempt < 5, `${url}: the chain kept changing what the page shows`);
    }
    await check(page, answer);
    assert.deepEqual(await page.locator('[role="alert"]').allTextContents(), [], `${url} shows errors`);
    const scrollWidth = await page.evaluate(() => document.scrollingElement.scrollWidth);
    assert.ok(scrollWidth <= viewport.width, `${url} is ${scrollWidth} px wide at ${viewport.width} px`);
    assert.deepEqual(errors, [], `${url} at ${viewport.width} px`);
    await context.close();
  }
}

/** A REST answer and the JSON-RPC answers read just before and after it, once those two agree. */
async function agreeing<R, J>(rest: () => Promise<R>, json: () => Promise<J>): Promise<[R, J]> {
  for (let attempt = 0; attempt < 5; attempt++) {
    const before = await json();
    const r = await rest();
    if (isDeepStrictEqual(before, await json())) return [r, before];
  }
  throw new Error('the chain kept changing the answers');
}

/** The rows of the table labelled `label`, each as its cells' texts. */
async function rows(page: Page, label: string): Promise<string[][]> {
  const trs = page.locator(`[aria-label="${label}"] tbody tr`);
  const out: string[][] = [];
  for (let i = 0; i < (await trs.count()); i++) out.push((await trs.nth(i).locator('td').allTextContents()).map((t) => t.trim()));
  return out;
}

/** The title of each link in column `col` of the table labelled `label` (full hashes and addresses). */
async function columnTitles(page: Page, label: string, col: number): Promise<string[]> {
  return page.locator(`[aria-label="${label}"] tbody tr td:nth-child(${col}) a`).evaluateAll((as: any[]) => as.map((a) => a.getAttribute('title')));
}

before(async () => {
  assert.ok(existsSync(path.join(WEB_DIR, 'index.html')), `the web page is not built in ${WEB_DIR}: run node scripts/build-web.mjs`);
  browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox'] });
  chain = await startChainPagesActivity();
});

after(async () => {
  await browser?.close();
  await chain?.stop();
});

describe('the REST routes the chain pages read, against JSON-RPC', () => {
  it('/compute/models is svc_getApprovedModels', async () => {
    assert.deepEqual(await ok('/compute/models'), await call('svc_getApprovedModels'));
  });

  it("/compute/proofs lists the accepted proof as svc_getInferenceProofs has it; ?miner= keeps one miner's; bad input is a 400", async () => {
    const proof = await call('svc_getInferenceProof', [chain.proofId]);
    const list = await ok('/compute/proofs?limit=100');
    const shown = list.items.find((p: { proofId: string }) => p.proofId === chain.proofId);
    assert.ok(shown, 'the proof is listed');
    const inBlock = await call('svc_getInferenceProofs', [proof.includedAt]);
    assert.deepEqual(inBlock.accepted.map((p: { proofId: string }) => p.proofId), [chain.proofId]);
    assert.equal(shown.includedAt, Number(proof.includedAt));
    assert.equal(shown.blockReward, BigInt(proof.blockReward).toString());
    assert.equal(shown.flops, proof.flops);
    assert.equal(shown.miner, proof.miner);
    assert.equal(shown.spotCheck, proof.spotCheck);
    assert.deepEqual((await ok(`/compute/proofs?miner=${chain.miner}`)).items.map((p: { proofId: string }) => p.proofId), [chain.proofId]);
    assert.deepEqual((await ok(`/compute/proofs?miner=0x${'12'.repeat(20)}`)).items, []);
    // A page of one ends at the proof; its next page (older blocks) holds nothing more.
    const one = await ok('/compute/proofs?limit=1');
    assert.equal(one.items[0].proofId, chain.proofId);
    assert.deepEqual((await ok(`/compute/proofs?limit=1&cursor=${one.next}`)).items, []);
    await refused('/compute/proofs?miner=0x12', 400);
    await refused('/compute/proofs?cursor=nonsense', 400);
    await refused('/compute/proofs?limit=0', 400);
  });

  it('/compute/tasks lists open tasks, each as svc_getInferenceTask has it', async () => {
    const list = await ok('/compute/tasks?limit=100');
    assert.ok(list.items.length > 0, 'the miner holds open tasks');
    for (const t of list.items.slice(0, 5)) {
      assert.ok(['pending', 'assigned'].includes(t.status), t.status);
      const r = await call('svc_getInferenceTask', [t.taskId]);
      assert.deepEqual([t.kind, t.modelId, t.assignedTo, t.deadlineEpoch], [r.kind, r.modelId, r.assignedTo, r.deadlineEpoch]);
    }
    assert.ok(!list.items.some((t: { taskId: string }) => t.taskId === chain.taskId), 'the proven task is not open');
    await refused('/compute/tasks?cursor=bad', 400);
  });

  it('/user-operations and /user-operations/{hash} are the EntryPoint events eth_getUserOperationReceipt reads; 400 and 404 for bad hashes', async () => {
    const list = await ok('/user-operations');
    assert.deepEqual(new Set(list.items.map((o: { userOpHash: string }) => o.userOpHash)), new Set(chain.userOps));
    assert.equal(list.items.length, 3);
    for (const hash of chain.userOps) {
      const r = await call('eth_getUserOperationReceipt', [hash]);
      const one = await ok(`/user-operations/${hash}`);
      assert.deepEqual(
        [one.sender, one.paymaster, one.nonce, one.success, one.actualGasCost, one.actualGasUsed, one.transactionHash, one.blockNumber],
        [getAddress(r.sender), null, BigInt(r.nonce).toString(), r.success, BigInt(r.actualGasCost).toString(), BigInt(r.actualGasUsed).toString(), r.receipt.transactionHash, Number(r.receipt.blockNumber)],
      );
      assert.deepEqual(one.logs.map((l: { logIndex: number }) => l.logIndex), r.logs.map((l: { logIndex: string }) => Number(l.logIndex)));
      assert.equal(one.bundler.toLowerCase(), r.receipt.from.toLowerCase());
      assert.deepEqual(list.items.find((o: { userOpHash: string }) => o.userOpHash === hash).transactionHash, r.receipt.transactionHash);
    }
    // An address's operations are the same page, of its own.
    const own = await ok(`/addresses/${chain.senders[0]}/user-operations`);
    assert.deepEqual(own.items, list.items.filter((o: { sender: string }) => o.sender === chain.senders[0]));
    const paged = await ok('/user-operations?limit=2');
    assert.deepEqual([...paged.items, ...(await ok(`/user-operations?limit=2&cursor=${paged.next}`)).items], list.items);
    await refused(`/user-operations/0x${'ab'.repeat(32)}`, 404);
    await refused('/user-operations/0x1234', 400);
    await refused('/user-operations?cursor=bad', 400);
  });

  it("/network/validators/{address}/signing-window: the signer's window all signed, the absentee's missed; uptime as svc_getValidator", async () => {
    const max = STAKING.signedBlocksWindow - Math.floor((STAKING.signedBlocksWindow * STAKING.minSignedPerWindowBps + 5_000) / 10_000);
    const signer = await ok(`/network/validators/${chain.signer}/signing-window`);
    assert.deepEqual([signer.windowSize, signer.counted, signer.signed, signer.missed, signer.maxMissedPerWindow], [STAKING.signedBlocksWindow, STAKING.signedBlocksWindow, STAKING.signedBlocksWindow, 0, max]);
    assert.deepEqual(new Set(signer.blocks), new Set(['signed']));
    assert.equal(signer.uptime, (await call('svc_getValidator', [chain.signer])).uptime);
    const absentee = await ok(`/network/validators/${chain.absentee}/signing-window`);
    assert.ok(absentee.missed > max, `${absentee.missed} missed`);
    assert.equal(absentee.blocks.filter((b: string) => b === 'missed').length, absentee.missed);
    assert.equal(absentee.signed + absentee.missed, absentee.counted);
    const v = await call('svc_getValidator', [chain.absentee]);
    assert.equal(v.status, 'jailed');
    assert.equal(absentee.uptime, v.uptime);
    await refused(`/network/validators/0x${'12'.repeat(20)}/signing-window`, 404);
    await refused('/network/validators/0x12/signing-window', 400);
  });

  it("/addresses/{address}'s rent is svc_getAccountRentInfo's, with the rent module", async () => {
    const [{ rent }, { address: _a, ...info }] = await agreeing(() => ok(`/addresses/${chain.dormant}`), () => call('svc_getAccountRentInfo', [chain.dormant]));
    assert.deepEqual(rent, { ...info, exempt: false, module: '0x0000000000000000000000000000000000001005' });
    assert.equal(rent.isDormant, true);
  });
});

describe('the chain pages at 390 px and 1280 px show the JSON-RPC answers', () => {
  it('/compute: models, miners, open tasks and accepted proofs', async () => {
    const read = async () => {
      const [models, proof, miners, stats] = await Promise.all([
        call<{ id: string; status: string }[]>('svc_getApprovedModels'),
        call('svc_getInferenceProof', [chain.proofId]),
        call<{ wallet: string; proofsAccepted: string; status: string }[]>('svc_getInferenceMiners'),
        call('svc_getInferenceStats'),
      ]);
      return { models: models.map((m) => [m.id, m.status]), proof, miners: miners.map((m) => [m.wallet, m.proofsAccepted, m.status]), accepted: stats.proofs.accepted as number };
    };
    await eachViewport('/compute', 'Accepted proofs', read, async (page, a) => {
      assert.deepEqual((await rows(page, 'approved models')).map((r) => [r[0], r[3]!.split(' ')[0]]), a.models);
      const proofRows = await rows(page, 'accepted proofs');
      assert.equal(proofRows.length, 1);
      assert.deepEqual(await columnTitles(page, 'accepted proofs', 1), [chain.proofId]);
      assert.deepEqual(await columnTitles(page, 'accepted proofs', 2), [a.proof.taskId]);
      const [, , , model, flops, block, , spot] = proofRows[0]!;
      assert.deepEqual([model, flops, block, spot], [a.proof.modelId, grouped(a.proof.flops), grouped(a.proof.includedAt), a.proof.spotCheck]);
      assert.equal(await page.locator('[aria-label="accepted proofs"] tbody td:nth-child(7) span').getAttribute('title'), weiTitle(BigInt(a.proof.blockReward)));
      const miners = await rows(page, 'compute miners');
      assert.deepEqual(await columnTitles(page, 'compute miners', 2), a.miners.map((m) => m[0]));
      assert.deepEqual(miners.map((r) => [r[2], r[4]]), a.miners.map((m) => [m[2], grouped(m[1]!)]));
      assert.equal(await text(fact(page, 'Proofs accepted')), grouped(a.accepted));
    });
  });

  it('/compute/proof/{id}: the proof, its spot-check and its reward', async () => {
    await eachViewport(`/compute/proof/${chain.proofId}`, 'Spot-check result', () => call('svc_getInferenceProof', [chain.proofId]), async (page, p) => {
      assert.equal(await text(fact(page, 'Spot-check')), p.spotCheck);
      assert.equal(await text(fact(page, 'Included at block')), grouped(p.includedAt));
      assert.equal(await text(fact(page, 'Model')), p.modelId);
      assert.equal(await text(fact(page, 'FLOPs (claimed)')), `${grouped(p.flops)} (${grouped(p.claimedFlops)})`);
      assert.equal(await fact(page, 'Block reward').locator('span').first().getAttribute('title'), weiTitle(BigInt(p.blockReward)));
      assert.equal(await fact(page, 'Miner').locator('a').getAttribute('title'), p.miner);
      assert.equal(await fact(page, 'Task').locator('a').getAttribute('title'), p.taskId);
      assert.equal(await text(fact(page, 'Output hash')), p.outputHash);
    });
  });

  it('/compute/task/{id}: the task, completed by the proof', async () => {
    await eachViewport(`/compute/task/${chain.taskId}`, 'Result', () => call('svc_getInferenceTask', [chain.taskId]), async (page, t) => {
      assert.equal(t.status, 'completed');
      assert.equal(await text(fact(page, 'Status')), t.status);
      assert.equal(await text(fact(page, 'Kind')), t.kind);
      assert.equal(await text(fact(page, 'Model')), t.modelId);
      assert.equal(await fact(page, 'Assigned to').locator('a').getAttribute('title'), t.assignedTo);
      assert.equal(await text(fact(page, 'Completed at block')), grouped(t.completedAt));
      assert.equal(await fact(page, 'Proof').locator('a').getAttribute('title'), t.result.proofId);
      assert.equal(t.result.proofId, chain.proofId);
    });
  });

  it("/compute/miner/{address}: the miner's counters, rewards, open tasks and proofs", async () => {
    const read = async () => {
      const m = await call('svc_getInferenceMiner', [chain.miner]);
      return { status: m.status, tasksCompleted: m.tasksCompleted, proofsAccepted: m.proofsAccepted, rewards: m.rewards, openTasks: m.openTasks, flops: m.flops };
    };
    await eachViewport(`/compute/miner/${chain.miner}`, 'Its accepted proofs', read, async (page, m) => {
      assert.equal(await text(fact(page, 'Status')), m.status);
      assert.equal(await text(fact(page, 'Tasks completed')), grouped(m.tasksCompleted));
      assert.equal(await text(fact(page, 'Proofs accepted')), grouped(m.proofsAccepted));
      assert.equal(await text(fact(page, 'FLOPs')), grouped(m.flops));
      assert.equal(await fact(page, 'Rewards').locator('span').getAttribute('title'), weiTitle(BigInt(m.rewards)));
      assert.equal(await page.getByRole('heading', { name: /^Open tasks/ }).textContent(), `Open tasks (${m.openTasks})`);
      assert.deepEqual(await columnTitles(page, 'miner proofs', 1), [chain.proofId]);
    });
  });

  it('/user-operations: each operation as eth_getUserOperationReceipt has it, newest first', async () => {
    const read = () => Promise.all(chain.userOps.map((h) => call('eth_getUserOperationReceipt', [h])));
    await eachViewport('/user-operations', 'Bundle transaction', read, async (page, receipts) => {
      const hashes = await columnTitles(page, 'user operations', 1);
      assert.deepEqual(new Set(hashes), new Set(chain.userOps));
      const shown = await rows(page, 'user operations');
      const blocks = shown.map((r) => Number(r[6]!.replace(/,/g, '')));
      assert.deepEqual(blocks, [...blocks].sort((x, y) => y - x), 'newest first');
      for (const [i, hash] of hashes.entries()) {
        const r = receipts[chain.userOps.indexOf(hash as `0x${string}`)]!;
        const row = page.locator('[aria-label="user operations"] tbody tr').nth(i);
        assert.equal(await row.locator('td:nth-child(2) a').getAttribute('title'), getAddress(r.sender));
        assert.equal(shown[i]![2], 'none');
        assert.equal(shown[i]![3], r.success ? 'success' : 'failed');
        assert.equal(await row.locator('td:nth-child(5) span').getAttribute('title'), weiTitle(BigInt(r.actualGasCost)));
        assert.equal(await row.locator('td:nth-child(6) a').getAttribute('title'), r.receipt.transactionHash);
        assert.equal(blocks[i], Number(r.receipt.blockNumber));
      }
    });
  });

  it('/user-operations/{hash}: sender, paymaster, bundle transaction, result, gas cost and its logs', async () => {
    const hash = chain.userOps[2]!;
    await eachViewport(`/user-operations/${hash}`, 'Logs (', () => call('eth_getUserOperationReceipt', [hash]), async (page, r) => {
      assert.equal(await text(fact(page, 'Sender')), getAddress(r.sender));
      assert.equal(await text(fact(page, 'Paymaster')), 'none (the account paid)');
      assert.equal(await text(fact(page, 'Nonce')), grouped(r.nonce));
      assert.equal(await text(fact(page, 'Result')), r.success ? 'success' : 'failed');
      assert.equal(await fact(page, 'Actual gas cost').locator('span').getAttribute('title'), weiTitle(BigInt(r.actualGasCost)));
      assert.equal(await text(fact(page, 'Actual gas used')), grouped(r.actualGasUsed));
      assert.equal(await text(fact(page, 'Bundle transaction')), r.receipt.transactionHash);
      assert.equal(await text(fact(page, 'Block')), grouped(r.receipt.blockNumber));
      assert.ok(r.logs.length > 0, 'the operation logged (its deposit at the EntryPoint)');
      assert.equal(await page.getByRole('heading', { name: /^Logs/ }).textContent(), `Logs (${r.logs.length})`);
      const logAddresses = await page.locator('[aria-label="user operation logs"] > li > div:first-child a').evaluateAll((as: any[]) => as.map((a) => a.getAttribute('title')));
      assert.deepEqual(logAddresses, r.logs.map((l: { address: string }) => getAddress(l.address)));
    });
  });

  it('/user-operations/{hash} of an operation without logs says so', async () => {
    const hash = chain.userOps[0]!;
    await eachViewport(`/user-operations/${hash}`, 'Logs (', () => call('eth_getUserOperationReceipt', [hash]), async (page, r) => {
      assert.deepEqual(r.logs, []);
      assert.equal(await page.getByRole('heading', { name: /^Logs/ }).textContent(), 'Logs (0)');
      await page.getByText('Its execution emitted no logs.').waitFor();
      assert.equal(await text(fact(page, 'Sender')), getAddress(r.sender));
    });
  });

  it("the bundle transaction's page links its user operations", async () => {
    const read = () => Promise.all(chain.userOps.slice(0, 2).map((h) => call('eth_getUserOperationReceipt', [h])));
    await eachViewport(`/tx/${chain.bundle}`, 'User operations (2)', read, async (page, receipts) => {
      const hashes = await columnTitles(page, 'bundled user operations', 1);
      assert.deepEqual(hashes, receipts.map((r) => r.userOpHash));
      assert.deepEqual(
        await page.locator('[aria-label="bundled user operations"] tbody td:nth-child(2) a').evaluateAll((as: any[]) => as.map((a) => a.getAttribute('title'))),
        receipts.map((r) => getAddress(r.sender)),
      );
      await page.locator(`a[href="/user-operations/${hashes[0]}"]`).click();
      await page.waitForURL(new RegExp(`/user-operations/${hashes[0]}$`));
      await fact(page, 'Sender').waitFor();
      assert.equal(await text(fact(page, 'Sender')), getAddress(receipts[0]!.sender));
    });
  });

  it("the sender's address page lists its user operations and its rent", async () => {
    const sender = chain.senders[0]!;
    const read = async () => {
      const mine = (await Promise.all(chain.userOps.map((h) => call('eth_getUserOperationReceipt', [h])))).filter((r) => getAddress(r.sender) === sender);
      const rent = await call('svc_getAccountRentInfo', [sender]);
      return { mine: mine.map((r) => [r.userOpHash, Number(r.receipt.blockNumber)] as [string, number]), rent };
    };
    await eachViewport(`/address/${sender}`, 'Storage rent', read, async (page, a) => {
      assert.equal(a.mine.length, 2);
      const newestFirst = [...a.mine].sort((x, y) => y[1] - x[1]).map((m) => m[0]);
      assert.deepEqual(await columnTitles(page, 'address user operations', 1), newestFirst);
      assert.equal(await text(fact(page, 'State')), a.rent.isDormant ? 'dormant' : 'active');
      assert.equal(await text(fact(page, 'Storage slots')), grouped(a.rent.storageSlotCount));
      assert.equal(await fact(page, 'Storage deposit').locator('span').getAttribute('title'), weiTitle(a.rent.storageDeposit));
    });
  });

  it('a dormant account: deposits, rent owed, dormancy and how to reactivate it', async () => {
    await eachViewport(`/address/${chain.dormant}`, 'Storage rent', () => call('svc_getAccountRentInfo', [chain.dormant]), async (page, r) => {
      assert.equal(r.isDormant, true);
      assert.equal(await text(fact(page, 'State')), 'dormant');
      assert.equal(await fact(page, 'Storage deposit').locator('span').getAttribute('title'), weiTitle(r.storageDeposit));
      assert.equal(await text(fact(page, 'Storage slots')), grouped(r.storageSlotCount));
      assert.equal(await fact(page, 'Rent owed').locator('span').getAttribute('title'), weiTitle(r.rentOwed));
      assert.equal(await text(fact(page, 'Last active epoch')), grouped(r.lastActiveEpoch));
      assert.equal(await text(fact(page, 'Current epoch')), grouped(r.currentEpoch));
      assert.equal(await fact(page, 'Reactivation fee').locator('span').getAttribute('title'), weiTitle(r.reactivationFee));
      const how = page.locator('[data-reactivate]');
      assert.match(await text(how), new RegExp(`reactivate\\(${chain.dormant}\\)`));
      assert.equal(await how.locator('span[title$=" wei"]').getAttribute('title'), weiTitle(BigInt(r.reactivationFee) + BigInt(r.rentOwed)));
      assert.equal(await page.locator('[aria-label="rent actions"]').count(), 1, 'the wallet actions are in the rent section');
    });
  });

  it("each validator's page: signed and missed blocks over the window, charted, and the node's peers", async () => {
    for (const [who, address] of [['signer', chain.signer], ['absentee', chain.absentee]] as const) {
      const read = async () => {
        const [w, v, n] = await Promise.all([ok(`/network/validators/${address}/signing-window`), call('svc_getValidator', [address]), call('svc_getNodeInfo')]);
        return { w, uptime: v.uptime as number, status: v.status as string, peers: n.peerCount as number, netPeers: Number(await call('net_peerCount')), syncing: n.syncing as boolean };
      };
      await eachViewport(`/validator/${address}`, 'Signing window', read, async (page, a) => {
        assert.equal(await text(fact(page, 'Signed')), grouped(a.w.signed));
        assert.equal(await text(fact(page, 'Missed')), grouped(a.w.missed));
        assert.equal(await text(fact(page, 'Uptime in the window')), `${a.uptime}%`);
        assert.equal(await page.locator('.signing rect.signed').count(), a.w.signed);
        assert.equal(await page.locator('.signing rect.missed').count(), a.w.missed);
        if (who === 'signer') assert.deepEqual([a.w.signed, a.w.missed], [STAKING.signedBlocksWindow, 0]);
        else assert.ok(a.w.missed > 0 && a.status === 'jailed');
        assert.equal(await text(fact(page, 'Peers connected')), grouped(a.peers));
        assert.equal(a.peers, a.netPeers);
        assert.equal(await text(fact(page, 'Syncing')), a.syncing ? 'yes' : 'no');
      });
    }
  });

  it('the header links the Compute and User ops pages', async () => {
    const context = await browser.newContext({ viewport: VIEWPORTS[0] });
    const page = await context.newPage();
    await page.goto(`${chain.explorerUrl}/`);
    await page.getByRole('navigation', { name: 'main' }).getByRole('link', { name: 'Compute' }).click();
    await page.waitForURL(/\/compute$/);
    await page.getByRole('heading', { name: 'Accepted proofs' }).waitFor();
    await page.getByRole('navigation', { name: 'main' }).getByRole('link', { name: 'User ops' }).click();
    await page.waitForURL(/\/user-operations$/);
    await page.locator('[aria-label="user operations"]').waitFor();
    await context.close();
  });
});
