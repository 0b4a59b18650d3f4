// The explorer's governance, treasury and bridge pages in headless Chromium (Debian's chromium,
// driven by playwright-core) against a devnet where a parameter change passed and took effect, a
// treasury spend passed and was paid in two parts, and a bridge round trip with a Hardhat chain
// happened (test/support/governance-bridge-activity.ts). Each page, at 390 px and at 1280 px, shows
// what svc_getProposal, svc_getGovernanceParams, svc_getTreasuryInfo, svc_getBridgeStatus,
// svc_getBridgeDeposit and svc_getBridgeWithdrawal answer (exact wei in the amounts' titles), without
// console errors and without scrolling the page sideways (tables scroll inside their own box).
// Screenshots of each page at each width are written to a folder under the OS temp dir (its path is printed).
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { chromium, type Browser, type Locator, type Page } from 'playwright-core';
import { getAddress } from 'viem';
import { WEB_DIR } from '../src/explorer/web.js';
import { system } from '../src/params.js';
import { PARAM_NAME, SPEND, SPEND_PARTS, startGovernanceBridgeActivity, type GovernanceBridgeActivity } from './support/governance-bridge-activity.js';
import { rpc } from './support/json-rpc.js';

// The browser's globals, for the functions page.evaluate runs there (the project compiles without the DOM lib).
declare const document: any;

const CHROMIUM = process.env['SVC_CHROMIUM_PATH'] ?? '/usr/bin/chromium';
const WIDTHS = [390, 1280] as const;
const TREASURY = getAddress(system.treasuryAddress);
const SHOTS = path.join(os.tmpdir(), 'svc-explorer-governance-screenshots');

type Obj = Record<string, any>;

let chain: GovernanceBridgeActivity;
let browser: Browser;
let base: string;

/** A wei amount as the pages' titles write it: every digit, grouped by thousands. */
const exact = (wei: string | bigint) => `${BigInt(wei).toString().replace(/\B(?=(\d{3})+(?!\d))/g, ',')} wei`;
/** A 0x quantity as a number. */
const num = (hex: string | number) => Number(BigInt(hex));
/** The ISO time a <time> element carries for Unix seconds. */
const iso = (seconds: string | number) => new Date(num(seconds) * 1000).toISOString();

const svc = <T = Obj>(method: string, params: unknown[] = []) => rpc<T>(chain.node.rpcUrl, method, params);
async function rest<T = Obj>(p: string): Promise<T> {
  const body = (await (await fetch(`${base}/api/v1${p}`)).json()) as { ok: boolean; data: T };
  assert.ok(body.ok, p);
  return body.data;
}

/** The <dd> of the fact labelled `label` (exactly) inside `scope`. */
const fact = (scope: Page | Locator, label: string) => scope.locator('.facts > div', { has: scope.locator('dt', { hasText: new RegExp(`^${label}$`) }) }).locator('dd');
/** The titles of the amounts (exact wei) inside `scope`, in order. */
const titles = async (scope: Locator) => scope.locator('span[title$=" wei"]').evaluateAll((els: any[]) => els.map((e) => e.getAttribute('title')));
const text = async (scope: Locator) => ((await scope.first().textContent()) ?? '').trim();
/** The cells of the table row in region `table` whose text contains `has`. */
const row = (page: Page, table: string, has: string | RegExp) => page.getByRole('region', { name: table, exact: true }).locator('tbody tr', { hasText: has }).locator('td');
/** The cells of the table row in region `table` whose first cell is `first`. */
const rowOf = (page: Page, table: string, first: string) =>
  page.getByRole('region', { name: table, exact: true }).locator('tbody tr', { has: page.locator('td:first-child', { hasText: new RegExp(`^${first}$`) }) }).locator('td');

/**
 * Opens `url` at each width, waits for `ready` and no "Loading…", and runs `check` on it: no alert,
 * no console error, no sideways scroll of the page.
 */
async function atBothWidths(url: string, ready: string, check: (page: Page, width: number) => Promise<void>): Promise<void> {
  for (const width of WIDTHS) {
    const context = await browser.newContext({ viewport: { width, height: 900 } });
    const page = await context.newPage();
    const errors: string[] = [];
    page.on('console', (m) => {
      if (m.type() === 'error') errors.push(`${page.url()}: ${m.text()}`);
    });
    page.on('pageerror', (e) => errors.push(`${page.url()}: ${e.message}`));
    try {
      await page.goto(`${base}${url}`);
      await page.getByText(ready, { exact: false }).first().waitFor({ timeout: 10_000 });
      await page.waitForFunction(() => document.querySelector('[aria-busy="true"]') === null, null, { timeout: 10_000 });
      assert.deepEqual(await page.locator('[role="alert"]').allTextContents(), [], `${url} at ${width} px shows errors`);
      await check(page, width);
      await page.screenshot({ path: path.join(SHOTS, `${url.replace(/[^a-z0-9]+/gi, '-').replace(/^-|-$/g, '') || 'home'}-${width}.png`), fullPage: true });
      const scrollWidth = await page.evaluate(() => document.scrollingElement.scrollWidth);
      assert.ok(scrollWidth <= width, `${url} is ${scrollWidth} px wide at ${width} px`);
      assert.deepEqual(errors, [], `${url} at ${width} px`);
    } finally {
      await context.close();
    }
  }
}

before(async () => {
  assert.ok(existsSync(path.join(WEB_DIR, 'index.html')), `the web page is not built in ${WEB_DIR}: run node scripts/build-web.mjs`);
  // Fails (never skips) without a browser: scripts/setup-chromium.mjs installs it.
  [browser, chain] = await Promise.all([chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox'] }), startGovernanceBridgeActivity()]);
  base = chain.explorerUrl;
  rmSync(SHOTS, { recursive: true, force: true });
  mkdirSync(SHOTS, { recursive: true });
  process.stdout.write(`screenshots: ${SHOTS}\n`);
});

after(async () => {
  await browser?.close();
  await chain?.stop();
});

describe('governance', () => {
  it('the header links to governance and the bridge', async () => {
    await atBothWidths('/', 'Latest blocks', async (page) => {
      await page.getByRole('navigation', { name: 'main' }).getByRole('link', { name: 'Governance' }).click();
      await page.waitForURL(/\/governance$/);
      await page.getByRole('region', { name: 'proposals' }).waitFor();
      assert.equal(await page.getByRole('navigation', { name: 'main' }).getByRole('link', { name: 'Bridge' }).getAttribute('href'), '/bridge');
    });
  });

  it('a vote transaction links to the proposal it voted on', async () => {
    await atBothWidths(`/tx/${chain.voteTx}`, 'This transaction acted on', async (page) => {
      await page.locator('section', { hasText: 'This transaction acted on' }).getByRole('link', { name: `#${chain.changeId}`, exact: true }).click();
      await page.waitForURL(new RegExp(`/governance/proposals/${chain.changeId}$`));
      await page.getByText('What it did').waitFor();
    });
  });

  it('lists the proposals with kind, status, deposit and end of the vote as svc_getProposal answers', async () => {
    const proposals = await Promise.all([chain.changeId, chain.spendId].map((id) => svc('svc_getProposal', [id])));
    await atBothWidths('/governance', 'Proposals', async (page) => {
      for (const p of proposals) {
        const cells = page.getByRole('region', { name: 'proposals', exact: true }).locator('tbody tr', { has: page.locator(`a[href="/governance/proposals/${p.id}"]`) }).locator('td');
        assert.equal(await text(cells.nth(0)), `#${p.id} ${p.title}`);
        assert.equal(await text(cells.nth(1)), p.kind);
        assert.equal(await text(cells.nth(2)), 'passed');
        assert.equal(p.status, 'passed');
        assert.deepEqual(await titles(cells.nth(3)), [exact(p.totalDeposit), exact(p.minDeposit)]);
        assert.equal(await cells.nth(4).locator('time').getAttribute('datetime'), iso(p.votingEndTime));
      }
    });
  });

  it("a passed parameter change: its tally against the rules' lines, its vote and deposit, and the value in force", async () => {
    const p = await svc('svc_getProposal', [chain.changeId]);
    const params = await svc('svc_getGovernanceParams');
    const inForce = params.params.find((x: Obj) => x.name === PARAM_NAME);
    const votes = await rest(`/governance/proposals/${chain.changeId}/votes`);
    const deposits = await rest(`/governance/proposals/${chain.changeId}/deposits`);
    assert.equal(p.execution.result, 'applied');
    await atBothWidths(`/governance/proposals/${chain.changeId}`, 'What it did', async (page) => {
      assert.equal(await text(page.locator('h1')), `Proposal #${p.id}: ${p.title}`);
      assert.equal(await text(fact(page, 'Status')), p.status);
      assert.equal(await text(fact(page, 'Proposer')), p.proposer);
      assert.deepEqual(await titles(fact(page, 'Deposit')), [exact(p.totalDeposit), exact(p.minDeposit)]);
      assert.equal(await text(fact(page, 'Voters')), String(p.voters));
      assert.equal(await fact(page, 'Voting ends').locator('time').getAttribute('datetime'), iso(p.votingEndTime));
      assert.equal(await text(fact(page, 'Deposits')), p.deposits);
      assert.equal(await text(fact(page, 'Rules')), `quorum ${p.rules.quorum}%, threshold ${p.rules.threshold}%, veto ${p.rules.vetoThreshold}%`);

      // The tally: stake and share of each option, and the bars drawn to the same figures.
      for (const [key, name] of [['yes', 'Yes'], ['abstain', 'Abstain'], ['no', 'No'], ['noWithVeto', 'No with veto']] as const) {
        const cells = rowOf(page, 'tally', name);
        assert.deepEqual(await titles(cells.nth(1)), [exact(p.tally[key])], name);
        assert.equal(await text(cells.nth(2)), `${p.tally.percentages[key]}%`, name);
      }
      const voted = rowOf(page, 'tally', 'Voted');
      assert.deepEqual(await titles(voted.nth(1)), [exact(p.tally.totalVoted)]);
      assert.equal(await text(voted.nth(2)), `${p.tally.turnout}% of bonded`);
      const turnout = page.locator('.tally-bar').first();
      const yesWidth = Number(await turnout.locator('rect.opt-yes').getAttribute('width'));
      assert.ok(Math.abs(yesWidth / 600 - Number((BigInt(p.tally.yes) * 10_000n) / BigInt(p.tally.bonded)) / 10_000) < 0.001, `yes bar ${yesWidth} of 600`);
      assert.equal(Number(await turnout.locator('line.rule-line').getAttribute('x1')), (p.rules.quorum / 100) * 600);
      const threshold = page.locator('.tally-bar').nth(1);
      assert.equal(Number(await threshold.locator('line.rule-line').getAttribute('x1')), (p.rules.threshold / 100) * 600);
      assert.match(await text(threshold), new RegExp(`threshold ${p.rules.threshold}%`));

      // What it did: the chain's own account, and the parameter's value now.
      assert.equal(await text(fact(page, 'Result')), 'applied');
      assert.equal(await text(fact(page, 'Detail')), p.execution.detail);
      assert.equal(await text(fact(page, 'Applies from epoch')), String(num(p.execution.appliesAtEpoch)));
      const changed = row(page, 'parameters changed', PARAM_NAME);
      const [change] = p.content.changes;
      assert.equal(await text(changed.nth(1)), `${BigInt(change.newValue)} ${change.unit}`);
      assert.equal(await text(changed.nth(2)), `${BigInt(inForce.value)} ${inForce.unit}`);
      assert.equal(BigInt(inForce.value), BigInt(change.newValue), 'in force');

      // Its vote and its deposit, as the API lists them.
      assert.equal(votes.items.length, 1);
      const vote = row(page, 'votes', votes.items[0].voter);
      assert.equal(await text(vote.nth(0)), chain.validator);
      assert.equal(await text(vote.nth(1)), votes.items[0].option);
      assert.equal(await vote.nth(2).locator('a').getAttribute('href'), `/block/${votes.items[0].block}`);
      assert.equal(deposits.items.length, 1);
      const deposit = row(page, 'deposits', deposits.items[0].depositor);
      assert.equal(await text(deposit.nth(0)), chain.depositor);
      assert.deepEqual(await titles(deposit.nth(1)), [exact(deposits.items[0].amount)]);
      // The wallet's actions have their place; a passed proposal takes no more votes.
      await page.getByRole('heading', { name: 'Vote or deposit' }).waitFor();
    });
  });

  it('a passed treasury spend: whom it paid, how much, and every part paid (svc_getTreasuryInfo has none left)', async () => {
    const p = await svc('svc_getProposal', [chain.spendId]);
    const treasury = await svc('svc_getTreasuryInfo');
    assert.equal(treasury.pendingSpends.find((s: Obj) => s.proposalId === chain.spendId), undefined);
    assert.equal(treasury.spendsPaid, 1);
    assert.equal(BigInt(await svc<string>('eth_getBalance', [chain.spendRecipient, 'latest'])), SPEND, 'the recipient holds the spend');
    await atBothWidths(`/governance/proposals/${chain.spendId}`, 'What it did', async (page) => {
      assert.equal(await text(fact(page, 'Recipient')), p.content.recipient);
      assert.deepEqual(await titles(fact(page, 'Amount')), [exact(p.content.amount)]);
      assert.equal(await text(fact(page, 'Schedule')), `paid in ${p.content.vestingEpochs} parts, one per epoch`);
      assert.equal(p.content.vestingEpochs, SPEND_PARTS);
      assert.equal(await text(fact(page, 'Detail')), p.execution.detail);
      assert.match(await text(fact(page, 'Parts paid')), /^all/);
      assert.deepEqual(await titles(fact(page, 'Paid')), [exact(SPEND)]);
      assert.equal(await fact(page, 'Paid').locator('a').getAttribute('href'), `/address/${chain.spendRecipient}`);
    });
  });

  it("the treasury: its balance (eth_getBalance at the block shown), inflows and outflows as svc_getTreasuryInfo answers", async () => {
    const info = await svc('svc_getTreasuryInfo');
    await atBothWidths('/treasury', 'Inflows', async (page) => {
      const at = Number(((await fact(page, 'At block').locator('a').getAttribute('href')) ?? '').replace('/block/', ''));
      assert.ok(at > 0);
      const balance = await svc<string>('eth_getBalance', [TREASURY, `0x${at.toString(16)}`]);
      assert.deepEqual(await titles(fact(page, 'Balance')), [exact(balance)]);
      assert.equal(await text(fact(page, 'Address')), TREASURY);
      assert.equal(await text(fact(page, 'Spends paid in full')), String(info.spendsPaid));
      assert.deepEqual(await titles(fact(page, 'Still to pay')), [exact(info.pendingSpendsTotal)]);
      assert.deepEqual(await titles(rowOf(page, 'outflows', 'Spends').nth(1)), [exact(info.outflows.spends)]);
      assert.deepEqual(await titles(rowOf(page, 'outflows', 'All outflows').nth(1)), [exact(info.totalOutflows)]);
      assert.deepEqual(await titles(rowOf(page, 'inflows', 'Task fees').nth(1)), [exact(info.inflows.taskFees)]);
      // The inflows shown explain the balance shown: inflows - outflows = balance (the module's accounts).
      const [inflows] = await titles(rowOf(page, 'inflows', 'All inflows').nth(1));
      assert.equal(inflows, exact(BigInt(balance) + BigInt(info.totalOutflows)));
      await page.getByText('No spends waiting to be paid.').waitFor();
    });
  });
});

describe('bridge', () => {
  it('the status, the deposits and the withdrawals as svc_getBridgeStatus and the bridge answer', async () => {
    const s = await svc('svc_getBridgeStatus');
    const config = await rest('/bridge');
    const d = await svc('svc_getBridgeDeposit', [1]);
    const w = await svc('svc_getBridgeWithdrawal', [1]);
    assert.deepEqual([s.totalDeposits, s.totalWithdrawals, s.pendingDeposits, s.pendingWithdrawals], [1, 1, 0, 0]);
    await atBothWidths('/bridge', 'Withdrawals', async (page) => {
      assert.equal(await text(fact(page, 'State')), s.active ? 'active' : 'inactive');
      assert.equal(await text(fact(page, 'External chain')), `chain id ${config.externalChainId}`);
      assert.equal(await text(fact(page, 'Contract there')), config.contract);
      assert.equal(await text(fact(page, 'Confirmations waited')), String(config.confirmations));
      assert.equal(await text(fact(page, 'Validators')), String(s.validatorCount));
      assert.equal(await text(fact(page, 'Threshold')), `${s.threshold / 100}% of power`);
      assert.equal(await text(fact(page, 'Deposits minted')), String(s.totalDeposits));
      assert.equal(await text(fact(page, 'Deposits pending')), String(s.pendingDeposits));
      assert.equal(await text(fact(page, 'Withdrawals released')), String(s.totalWithdrawals));
      assert.equal(await text(fact(page, 'Withdrawals pending')), String(s.pendingWithdrawals));
      assert.deepEqual(await titles(fact(page, 'ETH locked there')), [exact(s.totalValueLocked)]);

      const dep = rowOf(page, 'bridge deposits', '#1');
      assert.equal(await text(dep.nth(1)), d.status);
      assert.equal(await text(dep.nth(2)), 'ETH');
      assert.deepEqual(await titles(dep.nth(3)), [exact(d.amount)]);
      assert.equal(await dep.nth(4).locator('a').getAttribute('href'), `/address/${d.recipient}`);
      assert.equal(await dep.nth(5).locator('a').getAttribute('href'), `/block/${d.mintedAt}`);
      assert.equal(await text(dep.nth(6)), String(d.attestations.length));
      const wd = rowOf(page, 'bridge withdrawals', '#1');
      assert.equal(await text(wd.nth(1)), w.status);
      assert.deepEqual(await titles(wd.nth(3)), [exact(w.amount)]);
      assert.equal(await text(wd.nth(5)), w.recipient);
      assert.equal(await wd.nth(6).locator('a').getAttribute('href'), `/block/${w.burnedAt}`);
      assert.equal(await wd.nth(7).locator('a').getAttribute('href'), `/block/${w.releasedAt}`);
      await page.locator('a[href="/bridge/deposits/1"]').waitFor();
      await page.locator('a[href="/bridge/withdrawals/1"]').waitFor();
    });
  });

  it("a deposit with its attestations, as svc_getBridgeDeposit answers", async () => {
    const d = await svc('svc_getBridgeDeposit', [1]);
    assert.equal(d.status, 'minted');
    assert.equal(d.recipient, chain.bridgeUser);
    await atBothWidths('/bridge/deposits/1', 'Attestations', async (page) => {
      assert.equal(await text(fact(page, 'Status')), d.status);
      assert.deepEqual(await titles(fact(page, 'Amount')), [exact(d.amount)]);
      assert.equal(await text(fact(page, 'Sender \\(external\\)')), d.sender);
      assert.equal(await text(fact(page, 'Recipient')), d.recipient);
      assert.equal(await fact(page, 'Minted at').locator('a').getAttribute('href'), `/block/${d.mintedAt}`);
      const rows = page.getByRole('region', { name: 'attestations', exact: true }).locator('tbody tr');
      assert.equal(await rows.count(), d.attestations.length);
      for (const a of d.attestations) {
        const cells = row(page, 'attestations', a.content);
        assert.deepEqual(await titles(cells.nth(2)), [exact(a.amount)]);
        assert.equal(await text(cells.nth(3)), a.sender);
        assert.deepEqual(await cells.nth(5).locator('a').allTextContents(), a.attesters);
      }
    });
  });

  it('a withdrawal with its signatures and the release attested from the external chain, as svc_getBridgeWithdrawal answers', async () => {
    const w = await svc('svc_getBridgeWithdrawal', [1]);
    assert.equal(w.status, 'released');
    assert.equal(w.recipient, chain.externalRecipient);
    await atBothWidths('/bridge/withdrawals/1', 'Signatures', async (page) => {
      assert.equal(await text(fact(page, 'Status')), w.status);
      assert.deepEqual(await titles(fact(page, 'Amount')), [exact(w.amount)]);
      assert.equal(await text(fact(page, 'From')), w.from);
      assert.equal(await text(fact(page, 'To \\(external\\)')), w.recipient);
      assert.equal(await text(fact(page, 'Digest')), w.digest);
      for (const [label, n] of [['Burned at', w.burnedAt], ['Signed enough at', w.readyAt], ['Release attested at', w.releasedAt]] as const) {
        assert.equal(await fact(page, label).locator('a').getAttribute('href'), `/block/${n}`, label);
      }
      const signatures = page.getByRole('list', { name: 'signatures', exact: true }).locator('li');
      assert.equal(await signatures.count(), w.signatures.length);
      for (const s of w.signatures) {
        const item = signatures.filter({ hasText: s.validator });
        assert.equal(await text(item.locator('a')), s.validator);
        assert.equal(await text(item.locator('[data-signature]')), s.signature);
      }
      assert.deepEqual(await page.getByRole('list', { name: 'release attesters', exact: true }).locator('a').allTextContents(), w.releaseAttesters);
      assert.ok(w.releaseAttesters.length > 0);
    });
  });
});
