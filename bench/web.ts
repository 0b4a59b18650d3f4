// bench:web — the explorer's web page on a devnet with activity, in headless Chromium: for each page,
// cold loads (a fresh browser context each, no cache) timed from navigation to its data shown
// ("interactive": the app mounted, its API answers fetched and rendered), and the JavaScript the
// first load fetches, gzip as sent. Prints a table; asserts nothing (test/explorer-web.test.ts
// holds the budgets: under 300 KB of JavaScript, interactive under 1 s).
import http from 'node:http';
import { parseArgs } from 'node:util';
import { chromium } from 'playwright-core';
import { startExplorerActivity } from '../test/support/explorer-activity.js';
import { loadLine, machineLine } from './support/machine.js';

const USAGE = `usage: node dist/bench/web.js [--loads <n>] [--chromium <path>]   (npm run bench:web -- [options])
  --loads <n>        cold loads per page (default 10)
  --chromium <path>  the browser (default /usr/bin/chromium; scripts/setup-chromium.mjs installs it)`;

declare const document: { querySelector(s: string): unknown };
declare const performance: { now(): number };

function gzipBytes(url: string): Promise<number> {
  return new Promise((resolve, reject) => {
    http
      .get(url, { headers: { 'accept-encoding': 'gzip' } }, (res) => {
        let n = 0;
        res.on('data', (c: Buffer) => (n += c.length));
        res.on('end', () => resolve(n));
      })
      .on('error', reject);
  });
}

const pct = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;

async function main(): Promise<void> {
  const { values } = parseArgs({ options: { loads: { type: 'string', default: '10' }, chromium: { type: 'string', default: '/usr/bin/chromium' }, help: { type: 'boolean' } } });
  if (values.help) return void process.stdout.write(`${USAGE}\n`);
  const loads = Number(values.loads);
  const chain = await startExplorerActivity();
  const browser = await chromium.launch({ executablePath: values.chromium, args: ['--no-sandbox'] });
  try {
    const validators = (await (await fetch(`${chain.explorerUrl}/api/v1/network/validators`)).json()) as { data: { address: string }[] };
    // A page is ready when its selector shows, or (null) when a heading is there and nothing is loading.
    const pages: [string, string, string | null][] = [
      ['home', '/', '[aria-labelledby="latest-blocks"] tbody tr'],
      ['transaction', `/tx/${chain.tokenTransfer}`, '.log strong'],
      ['address', `/address/${chain.alice.address}`, '[aria-label="address transactions"] tbody tr'],
      ['token', `/token/${chain.token}`, '[aria-label="holders"] tbody tr'],
      ['validator', `/validator/${validators.data[0]!.address}`, null],
      ['governance', '/governance', null],
      ['treasury', '/treasury', null],
      ['bridge', '/bridge', null],
      ['compute', '/compute', null],
      ['user operations', '/user-operations', null],
    ];
    process.stdout.write(`${machineLine()}\n${loadLine('before')}\n\n`);
    process.stdout.write(`| page | cold loads | interactive p50 (ms) | max (ms) | DOMContentLoaded p50 (ms) | scripts | JavaScript gzip (KB) |\n|---|---|---|---|---|---|---|\n`);
    for (const [name, url, ready] of pages) {
      const interactive: number[] = [];
      const dcl: number[] = [];
      let scripts: string[] = [];
      for (let i = 0; i < loads; i++) {
        const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
        const page = await context.newPage();
        const seen: string[] = [];
        page.on('request', (r) => {
          if (r.resourceType() === 'script') seen.push(r.url());
        });
        await page.goto(`${chain.explorerUrl}${url}`);
        if (ready !== null) await page.waitForSelector(ready, { timeout: 10_000 });
        else await page.waitForFunction(() => document.querySelector('h1, h2') !== null && document.querySelector('[aria-busy="true"]') === null, undefined, { timeout: 10_000 });
        interactive.push(await page.evaluate(() => performance.now()));
        dcl.push(await page.evaluate(() => (performance as unknown as { getEntriesByType(t: string): { domContentLoadedEventEnd: number }[] }).getEntriesByType('navigation')[0]!.domContentLoadedEventEnd));
        scripts = seen;
        await context.close();
      }
      let js = 0;
      for (const s of scripts) js += await gzipBytes(s);
      interactive.sort((a, b) => a - b);
      dcl.sort((a, b) => a - b);
      process.stdout.write(`| ${name} | ${loads} | ${pct(interactive, 50).toFixed(0)} | ${interactive.at(-1)!.toFixed(0)} | ${pct(dcl, 50).toFixed(0)} | ${scripts.length} | ${(js / 1024).toFixed(1)} |\n`);
    }
    process.stdout.write(`\n${loadLine('after')}\n`);
  } finally {
    await browser.close();
    await chain.stop();
  }
}

await main();
