// The explorer's web page against a devnet with activity, in headless Chromium (Debian's chromium,
// driven by playwright-core): the server's answers for the page, its assets and API paths; every
// page renders without console errors, without horizontal scroll and without a clipped table at
// 390 px and 1280 px; search goes to a block, a transaction, an address and a token; a new block
// appears on the home page without a reload; register, sign out, sign in, watch an address, create
// an API key and sign out work; the first load's JavaScript (gzip) and time to interactive are
// measured and printed. Screenshots of every page are written to a folder under the OS temp dir
// (its path is printed).
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, rmSync } from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { WEB_DIR } from '../src/explorer/web.js';
import { HISTORY_TRANSFERS, startExplorerActivity, type ExplorerActivity } from './support/explorer-activity.js';
import { clipped } from './support/layout.js';

// The browser's globals, for the functions page.evaluate runs there (the project compiles without the DOM lib).
declare const document: any;
declare const window: any;
declare const performance: { now(): number };

const CHROMIUM = process.env['SVC_CHROMIUM_PATH'] ?? '/usr/bin/chromium';
const PHONE = { width: 390, height: 844 };
const DESKTOP = { width: 1280, height: 900 };
const SHOTS = path.join(os.tmpdir(), 'svc-explorer-web-screenshots');
/** The budgets for the first load. */
const MAX_JS_GZIP_BYTES = 300 * 1024;
const MAX_INTERACTIVE_MS = 1000;

let chain: ExplorerActivity;
let browser: Browser;
let base: string;

/** A raw GET (no decompression): status, headers and the bytes as sent. */
function rawGet(url: string, headers: Record<string, string> = {}): Promise<{ status: number; headers: http.IncomingHttpHeaders; body: Buffer }> {
  return new Promise((resolve, reject) => {
    http
      .get(url, { headers }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }));
        res.on('error', reject);
      })
      .on('error', reject);
  });
}

/** A page of a phone-sized context that records console errors and uncaught exceptions. */
async function phonePage(context?: BrowserContext): Promise<{ page: Page; errors: string[] }> {
  const ctx = context ?? (await browser.newContext({ viewport: PHONE }));
  const page = await ctx.newPage();
  const errors: string[] = [];
  page.on('console', (m) => {
    if (m.type() === 'error') errors.push(`${page.url()}: ${m.text()}`);
  });
  page.on('pageerror', (e) => errors.push(`${page.url()}: ${e.message}`));
  return { page, errors };
}

/** Waits until the page shows its data: no "Loading…" left, and `text` on the page. */
async function settled(page: Page, text: string): Promise<void> {
  await page.getByText(text, { exact: false }).first().waitFor({ timeout: 10_000 });
  await page.waitForFunction(() => document.querySelector('[aria-busy="true"]') === null, null, { timeout: 10_000 });
}

async function shot(page: Page, name: string): Promise<void> {
  await page.screenshot({ path: path.join(SHOTS, `${name}.png`), fullPage: true });
}

before(async () => {
  assert.ok(existsSync(path.join(WEB_DIR, 'index.html')), `the web page is not built in ${WEB_DIR}: run node scripts/build-web.mjs`);
  // Fails (never skips) without a browser: scripts/setup-chromium.mjs installs it.
  browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox'] });
  chain = await startExplorerActivity();
  base = chain.explorerUrl;
  rmSync(SHOTS, { recursive: true, force: true });
  mkdirSync(SHOTS, { recursive: true });
  process.stdout.write(`screenshots: ${SHOTS}\n`);
});

after(async () => {
  await browser?.close();
  await chain?.stop();
});

describe('the explorer serves the page beside its API', () => {
  it('GET / is the page: HTML, no-cache, a content security policy of this origin only', async () => {
    const res = await rawGet(`${base}/`);
    assert.equal(res.status, 200);
    assert.equal(res.headers['content-type'], 'text/html; charset=utf-8');
    assert.equal(res.headers['cache-control'], 'no-cache');
    assert.match(String(res.headers['content-security-policy']), /default-src 'self'/);
    assert.match(res.body.toString(), /<div id="app"><\/div>/);
  });

  it('a client route asking for HTML gets the page; asking for JSON it stays a JSON 404', async () => {
    const html = await rawGet(`${base}/block/1`, { accept: 'text/html,application/xhtml+xml' });
    assert.equal(html.status, 200);
    assert.match(String(html.headers['content-type']), /^text\/html/);
    const json = await rawGet(`${base}/block/1`, { accept: 'application/json' });
    assert.equal(json.status, 404);
    assert.deepEqual(JSON.parse(json.body.toString()), { ok: false, error: 'not found: GET /block/1' });
  });

  it('unknown /api/v1 paths stay JSON 404s, even for a browser', async () => {
    const res = await rawGet(`${base}/api/v1/no-such-route`, { accept: 'text/html' });
    assert.equal(res.status, 404);
    assert.match(String(res.headers['content-type']), /^application\/json/);
    assert.deepEqual(JSON.parse(res.body.toString()), { ok: false, error: 'not found: GET /api/v1/no-such-route' });
  });

  it('assets are cached for a year and sent gzipped to clients that take gzip', async () => {
    const index = (await rawGet(`${base}/`)).body.toString();
    const script = /src="(\/assets\/[^"]+\.js)"/.exec(index)?.[1];
    assert.ok(script, 'index.html names its script');
    const gz = await rawGet(`${base}${script}`, { 'accept-encoding': 'gzip, deflate, br' });
    assert.equal(gz.status, 200);
    assert.equal(gz.headers['content-encoding'], 'gzip');
    assert.equal(gz.headers['cache-control'], 'public, max-age=31536000, immutable');
    assert.match(String(gz.headers['content-type']), /^text\/javascript/);
    const plain = await rawGet(`${base}${script}`, { 'accept-encoding': 'identity' });
    assert.equal(plain.headers['content-encoding'], undefined);
    assert.ok(plain.body.length > gz.body.length);
    const missing = await rawGet(`${base}/assets/no-such-file.js`, { accept: 'text/html' });
    assert.equal(missing.status, 404);
    assert.match(String(missing.headers['content-type']), /^application\/json/);
  });
});

describe('first load', () => {
  it(`loads under ${MAX_JS_GZIP_BYTES / 1024} KB of JavaScript (gzip) and is interactive under ${MAX_INTERACTIVE_MS} ms`, async () => {
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    const { page, errors } = await phonePage(context);
    const scripts: string[] = [];
    page.on('request', (r) => {
      if (r.resourceType() === 'script') scripts.push(r.url());
    });
    await page.goto(`${base}/`);
    // Interactive: the latest blocks are listed (the app is mounted, its data fetched and shown).
    await page.locator('[aria-labelledby="latest-blocks"] tbody tr').first().waitFor({ timeout: 10_000 });
    const interactiveMs = await page.evaluate(() => performance.now());
    let gzipBytes = 0;
    for (const url of scripts) gzipBytes += (await rawGet(url, { 'accept-encoding': 'gzip' })).body.length;
    process.stdout.write(`first load: ${scripts.length} script(s), ${(gzipBytes / 1024).toFixed(1)} KB JavaScript gzip; interactive (latest blocks shown) after ${interactiveMs.toFixed(0)} ms\n`);
    await shot(page, 'home-desktop');
    await context.close();
    assert.ok(scripts.length > 0);
    assert.ok(gzipBytes < MAX_JS_GZIP_BYTES, `${gzipBytes} bytes of JavaScript`);
    assert.ok(interactiveMs < MAX_INTERACTIVE_MS, `interactive after ${interactiveMs} ms`);
    assert.deepEqual(errors, []);
  });
});

describe('every page at 390 px and 1280 px: its data, no console errors, no horizontal scroll, no clipped table', () => {
  const pages = (): [string, string, string][] => [
    ['home', '/', 'Latest blocks'],
    ['blocks', '/blocks', 'Base fee'],
    ['transactions', '/txs', 'Fee'],
    ['tokens', '/tokens', 'TST'],
    ['block', '/block/1', 'Block 1'],
    ['transaction', `/tx/${chain.tokenTransfer}`, 'decoded with the verified ABI'],
    ['transaction-ether', `/tx/${chain.etherTransfer}`, '1.5 ETH'],
    ['address', `/address/${chain.alice.address}`, 'Token balances'],
    ['token', `/token/${chain.token}`, 'Holders'],
    ['contract', `/contract/${chain.token}`, 'full match'],
    ['validators', '/validators', 'genesis'],
    ['validator', `/validator/${chain.alice.address}`, 'Delegators'],
    ['miners', '/miners', 'Compute mode'],
    ['epoch', '/epoch', 'Slot of the head'],
    ['gas', '/gas', 'Propose'],
    ['account', '/account', 'Register'],
    ['search', '/search?q=T', 'Search: T'],
    ['governance', '/governance', 'Proposals'],
    ['treasury', '/treasury', 'Inflows'],
    ['bridge', '/bridge', 'Withdrawals'],
    ['compute', '/compute', 'Approved models'],
    ['user-operations', '/user-operations', 'User operations'],
    ['not-found', '/no-such-page', 'Not found'],
  ];

  it('renders each page by its URL', async () => {
    const { page, errors } = await phonePage();
    for (const [name, url, text] of pages()) {
      await page.goto(`${base}${url}`);
      await settled(page, text);
      const alerts = await page.locator('[role="alert"]').allTextContents();
      assert.deepEqual(alerts, [], `${url} shows errors`);
      const scrollWidth = await page.evaluate(() => document.scrollingElement.scrollWidth);
      assert.ok(scrollWidth <= PHONE.width, `${url} is ${scrollWidth} px wide`);
      assert.deepEqual(await clipped(page, false), [], `${url} at ${PHONE.width} px`);
      await shot(page, name);
    }
    assert.deepEqual(errors, []);
    await page.context().close();
  });

  it(`renders each page at ${DESKTOP.width} px: every table fits its box, no horizontal scroll`, async () => {
    const { page, errors } = await phonePage(await browser.newContext({ viewport: DESKTOP }));
    for (const [name, url, text] of pages()) {
      await page.goto(`${base}${url}`);
      await settled(page, text);
      const scrollWidth = await page.evaluate(() => document.scrollingElement.scrollWidth);
      assert.ok(scrollWidth <= DESKTOP.width, `${url} is ${scrollWidth} px wide`);
      assert.deepEqual(await clipped(page, true), [], `${url} at ${DESKTOP.width} px`);
      await shot(page, `${name}-desktop`);
    }
    assert.deepEqual(errors, []);
    await page.context().close();
  });

  it("reads the verified token's view functions from its page", async () => {
    const { page, errors } = await phonePage();
    await page.goto(`${base}/contract/${chain.token}`);
    await settled(page, 'Read contract');
    const form = page.locator('form.read', { hasText: 'balanceOf(address)' });
    await form.locator('input').fill(chain.alice.address);
    await form.getByRole('button', { name: 'Query' }).click();
    await form.locator('li').first().waitFor({ timeout: 10_000 });
    const answered = (await form.locator('li').first().textContent()) ?? '';
    assert.match(answered, /\(uint256\): \d+/);
    const symbol = page.locator('form.read', { hasText: 'symbol()' });
    await symbol.getByRole('button', { name: 'Query' }).click();
    await symbol.locator('li').first().waitFor({ timeout: 10_000 });
    assert.match((await symbol.locator('li').first().textContent()) ?? '', /TST/);
    // Bad input shows the API's reason.
    await form.locator('input').fill('0x12');
    await form.getByRole('button', { name: 'Query' }).click();
    await form.locator('[role="alert"]').waitFor({ timeout: 10_000 });
    assert.match((await form.locator('[role="alert"]').textContent()) ?? '', /arguments of balanceOf/);
    await shot(page, 'contract-read');
    assert.deepEqual(errors.filter((e) => !/status of 400/.test(e)), []);
    await page.context().close();
  });

  it('shows amounts with units and the exact value on hover', async () => {
    const { page } = await phonePage();
    await page.goto(`${base}/tx/${chain.etherTransfer}`);
    await settled(page, '1.5 ETH');
    assert.equal(await page.getByText('1.5 ETH', { exact: true }).getAttribute('title'), '1,500,000,000,000,000,000 wei');
    assert.match((await page.getByText(/gwei$/).first().textContent()) ?? '', /^[\d,.]+ gwei$/);
    await page.context().close();
  });

  it('is reachable by keyboard: the first Tab is the skip link, links and buttons are real', async () => {
    const { page } = await phonePage();
    await page.goto(`${base}/`);
    await settled(page, 'Latest blocks');
    await page.keyboard.press('Tab');
    assert.equal(await page.evaluate(() => document.activeElement?.textContent), 'Skip to content');
    await page.keyboard.press('Tab');
    assert.equal(await page.evaluate(() => document.activeElement?.tagName), 'A');
    // A block link followed with Enter moves to its page without a reload.
    await page.evaluate(() => (window.marker = 1));
    await page.locator('[aria-labelledby="latest-blocks"] tbody a').first().focus();
    await page.keyboard.press('Enter');
    await page.waitForURL(/\/block\/\d+$/);
    assert.equal(await page.evaluate(() => window.marker), 1);
    await page.context().close();
  });
});

describe('paging', () => {
  it("an address's history a page at a time, each page with its own URL", async () => {
    const { page, errors } = await phonePage();
    // Slow answers for the history (as a loaded server gives): a page moved to another cursor must
    // show "Loading…" until its own rows come, never the rows of the page it came from.
    await page.route('**/api/v1/addresses/*/transactions?*', async (route) => {
      await new Promise((r) => setTimeout(r, 400));
      await route.continue();
    });
    await page.goto(`${base}/address/${chain.alice.address}`);
    await settled(page, 'Token balances');
    const rows = page.locator('[aria-label="address transactions"] tbody tr');
    assert.equal(await rows.count(), 25);
    const firstPage = await rows.locator('td:first-child a').allTextContents();
    await page.getByRole('link', { name: 'Older →' }).click();
    await page.waitForURL(/\/address\/0x[0-9a-fA-F]{40}\?cursor=/);
    await settled(page, 'Token balances');
    // alice: the deployment, the token transfer, HISTORY_TRANSFERS ether transfers, the one she received.
    assert.equal(await rows.count(), HISTORY_TRANSFERS + 3 - 25);
    const secondPage = await rows.locator('td:first-child a').allTextContents();
    assert.equal(secondPage.filter((h) => firstPage.includes(h)).length, 0);
    // The URL is the page: loading it again shows the same rows.
    await page.reload();
    await settled(page, 'Token balances');
    assert.deepEqual(await rows.locator('td:first-child a').allTextContents(), secondPage);
    await page.getByRole('link', { name: '← Newer' }).click();
    await settled(page, 'Token balances');
    assert.deepEqual(await rows.locator('td:first-child a').allTextContents(), firstPage);
    assert.deepEqual(errors, []);
    await page.context().close();
  });
});

describe('search goes straight to the object', () => {
  it('finds a block, a transaction, an address and a token', async () => {
    const { page, errors } = await phonePage();
    await page.goto(`${base}/`);
    await settled(page, 'Latest blocks');
    const search = async (q: string, url: RegExp, text: string) => {
      await page.getByRole('searchbox').fill(q);
      await page.getByRole('searchbox').press('Enter');
      await page.waitForURL(url);
      await settled(page, text);
    };
    await search('2', /\/block\/2$/, 'Block 2');
    await search(chain.tokenTransfer, new RegExp(`/tx/${chain.tokenTransfer}$`), 'Token transfers (1)');
    await search(chain.bob.address, new RegExp(`/address/${chain.bob.address}$`), 'Token balances');
    await search('TST', new RegExp(`/token/${chain.token}$`), 'Holders');
    assert.deepEqual(errors, []);
    await page.context().close();
  });
});

describe('live feed', () => {
  it('a new block, a new transaction and the new totals appear on the home page without a reload', async () => {
    const { page, errors } = await phonePage();
    await page.goto(`${base}/`);
    await settled(page, 'Latest blocks');
    await page.evaluate(() => (window.marker = 1));
    const top = async () => Number((await page.locator('[aria-labelledby="latest-blocks"] tbody tr td a').first().textContent())!.replace(/,/g, ''));
    const first = await top();
    const txCount = page.locator('.facts > div', { has: page.locator('dt', { hasText: /^Transactions$/ }) }).locator('dd');
    const txsBefore = Number((await txCount.textContent())!.replace(/,/g, ''));
    const hash = await chain.sendEther();
    await page.locator(`[aria-labelledby="latest-transactions"] a[href="/tx/${hash}"]`).waitFor({ timeout: 10_000 });
    await page.waitForFunction((n) => Number(document.querySelector('.facts > div:nth-child(2) dd')?.textContent?.replace(/,/g, '')) > n, txsBefore, { timeout: 10_000 });
    await page.waitForFunction(
      (n) => Number(document.querySelector('[aria-labelledby="latest-blocks"] tbody tr td a')?.textContent?.replace(/,/g, '')) > n,
      first,
      { timeout: 10_000 },
    );
    assert.ok((await top()) > first);
    assert.equal(await page.evaluate(() => window.marker), 1, 'the page was not reloaded');
    await shot(page, 'home-live');
    assert.deepEqual(errors, []);
    await page.context().close();
  });
});

describe('accounts', () => {
  it('register, sign out, sign in, watch an address, create an API key (shown once), sign out', async () => {
    const { page, errors } = await phonePage();
    const email = `web-${Date.now()}@example.test`;
    const password = 'correct horse battery';
    await page.goto(`${base}/account`);
    const register = page.getByRole('form', { name: 'register' });
    await register.getByLabel('Email').fill(email);
    await register.getByLabel('Password').fill(password);
    await register.getByRole('button', { name: 'Register' }).click();
    await settled(page, `Signed in as`);
    assert.equal(await page.locator('main strong').first().textContent(), email);

    await page.getByRole('button', { name: 'Sign out' }).click();
    const signIn = page.getByRole('form', { name: 'sign in' });
    await signIn.waitFor();
    await signIn.getByLabel('Email').fill(email);
    await signIn.getByLabel('Password').fill(password);
    await signIn.getByRole('button', { name: 'Sign in' }).click();
    await settled(page, 'Signed in as');

    const watch = page.getByRole('form', { name: 'watch an address' });
    await watch.getByLabel('Address').fill(chain.bob.address);
    await watch.getByLabel('Name').fill('bob');
    await watch.getByRole('button', { name: 'Watch' }).click();
    await page.getByRole('region', { name: 'watchlist' }).getByText(chain.bob.address).waitFor();

    const keys = page.getByRole('form', { name: 'create an API key' });
    await keys.getByLabel('Key name').fill('ci');
    await keys.getByRole('button', { name: 'Create key' }).click();
    const key = (await page.locator('[data-api-key]').textContent()) ?? '';
    assert.match(key, /^svc_[0-9A-Za-z]{40}$/);
    await page.getByRole('region', { name: 'API keys' }).getByText('ci', { exact: true }).waitFor();
    // The key works against the API.
    const res = await fetch(`${base}/api/v1/blocks?limit=1&apikey=${key}`);
    assert.equal(res.status, 200);
    await shot(page, 'account-signed-in');

    // A reload keeps the sign-in (the refresh cookie), and the watchlist entry is there.
    await page.reload();
    await settled(page, 'Signed in as');
    await page.getByRole('region', { name: 'watchlist' }).getByText(chain.bob.address).waitFor();
    // The key is not shown again.
    assert.equal(await page.locator('[data-api-key]').count(), 0);

    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByRole('form', { name: 'sign in' }).waitFor();
    await page.reload();
    await page.getByRole('form', { name: 'sign in' }).waitFor();
    assert.deepEqual(errors, []);
    await page.context().close();
  });
});
