// Acting from the explorer's web page with a browser wallet, in headless Chromium: the test injects an
// EIP-1193 provider (window.ethereum) whose key stays in Node (a dev account; it signs with viem's
// account and forwards the raw transaction to the node), connects it from the header (the wallet
// starts on another chain and is asked to switch), then through the page's buttons delegates to the
// genesis validator, tries to undelegate more than it delegated (the page shows the revert and the
// node's reason), claims the delegation's rewards, votes on a proposal, deposits on another and pays
// a contract's rent. After each the chain shows the effect (svc_getDelegation, the RewardsClaimed
// log and the balance, svc_getProposal, the governance module's getVote, svc_getAccountRentInfo)
// and the page shows the transaction's hash, linked, and its result. The page's calldata comes from
// /network/modules, checked here against the ABI files.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import {
  createPublicClient,
  createWalletClient,
  decodeEventLog,
  encodeFunctionData,
  http,
  toFunctionSelector,
  toHex,
  type Abi,
  type AbiFunction,
  type Address,
  type Hash,
  type Hex,
  type PublicClient,
} from 'viem';
import { privateKeyToAccount, type PrivateKeyAccount } from 'viem/accounts';
import { WEB_DIR } from '../src/explorer/web.js';
import { epochOfHeight } from '../src/modules/staking/epoch.js';
import { startNode, type RunningNode } from '../src/node.js';
import { governance as defaultGovernance, rent as defaultRent, staking as defaultStaking, system, type GovernanceParams, type RentParams, type StakingParams } from '../src/params.js';
import { DEV_CHAIN_ID, devPrivateKeys } from './support/dev-accounts.js';
import { rpc, type JsonRpcError } from './support/json-rpc.js';
import { devnetConfig } from './support/node-config.js';
import { repoRoot } from './support/repo.js';
import { compileContracts } from './support/solc.js';
import { svcDevnet } from './support/viem-chain.js';

// The browser's globals, for the functions page.evaluate and addInitScript run there.
declare const document: any;
declare const window: any;

const CHROMIUM = process.env['SVC_CHROMIUM_PATH'] ?? '/usr/bin/chromium';
const PHONE = { width: 390, height: 844 };
const ETHER = 10n ** 18n;
/** 1 s epochs at 100 ms blocks: rent falls due quickly. */
const STAKING: StakingParams = { ...defaultStaking, epochLengthBlocks: 10 };
/** Proposals stay open for the whole file. */
const GOVERNANCE: GovernanceParams = { ...defaultGovernance, depositPeriodSeconds: 3_600, votingPeriodSeconds: 3_600 };
/** 100 uncovered slots owe 10^8 wei an epoch; no dormancy within the file. */
const RENT: RentParams = { ...defaultRent, depositPerSlot: 10n ** 12n, rentPerSlotPerEpoch: 10n ** 6n, dormancyOwedLimit: 10n ** 30n, dormancyEpochs: 1_000_000 };
const RENT_PER_EPOCH = 100n * RENT.rentPerSlotPerEpoch;
const abiOf = (name: string) => JSON.parse(readFileSync(path.join(repoRoot(), 'abi', `${name}.json`), 'utf8')) as Abi;
const GOV_ABI = abiOf('governance');
const STAKING_ABI = abiOf('staking');
const RENT_ABI = abiOf('rent');

type Obj = Record<string, any>;

/**
 * The wallet's side of window.ethereum, in Node: it holds the key, starts on chain 1 (as a wallet
 * last used elsewhere), signs eth_sendTransaction with a fixed gas limit (so a refused call is mined
 * and reverts, as with a wallet whose user set the gas) and forwards everything else to the node.
 */
class DevWallet {
  chainId = 1;
  readonly calls: string[] = [];
  readonly sent: { hash: Hash; to: string; data: string; value: bigint }[] = [];
  constructor(
    readonly account: PrivateKeyAccount,
    readonly rpcUrl: string,
  ) {}

  async request(method: string, params: any[]): Promise<unknown> {
    this.calls.push(method);
    switch (method) {
      case 'eth_requestAccounts':
      case 'eth_accounts':
        return [this.account.address];
      case 'eth_chainId':
        return toHex(this.chainId);
      case 'wallet_switchEthereumChain': {
        const id = Number(params[0]?.chainId);
        if (id !== DEV_CHAIN_ID) throw Object.assign(new Error(`unknown chain ${id}`), { code: 4902 });
        this.chainId = id;
        return null;
      }
      case 'eth_sendTransaction': {
        const tx = params[0] as { from: string; to: Address; data: Hex; value?: Hex };
        assert.equal(tx.from.toLowerCase(), this.account.address.toLowerCase(), 'the page sends from the connected account');
        const nonce = Number(await rpc<Hex>(this.rpcUrl, 'eth_getTransactionCount', [this.account.address, 'pending']));
        const gasPrice = BigInt(await rpc<Hex>(this.rpcUrl, 'eth_gasPrice'));
        const value = BigInt(tx.value ?? '0x0');
        const raw = await this.account.signTransaction({ chainId: this.chainId, type: 'eip1559', nonce, to: tx.to, data: tx.data, value, gas: 500_000n, maxFeePerGas: gasPrice * 2n, maxPriorityFeePerGas: 10n ** 9n });
        const hash = await rpc<Hash>(this.rpcUrl, 'eth_sendRawTransaction', [raw]);
        this.sent.push({ hash, to: tx.to.toLowerCase(), data: tx.data, value });
        return hash;
      }
      default:
        return rpc(this.rpcUrl, method, params);
    }
  }
}

let node: RunningNode;
let dataDir: string;
let browser: Browser;
let context: BrowserContext;
let client: PublicClient;
let wallet: DevWallet;
let base: string;
let validator: Address;
let votingId: number;
let depositId: number;
let rentTarget: Address;

/** A 390 px page of the wallet's context that records console errors and uncaught exceptions. */
async function walletPage(): Promise<{ page: Page; errors: string[] }> {
  const page = await context.newPage();
  const errors: string[] = [];
  page.on('console', (m) => {
    if (m.type() === 'error') errors.push(`${page.url()}: ${m.text()}`);
  });
  page.on('pageerror', (e) => errors.push(`${page.url()}: ${e.message}`));
  return { page, errors };
}

/** Opens `url`, waits for `text` and no "Loading…", and connects the wallet from the header. */
async function openConnected(page: Page, url: string, text: string): Promise<void> {
  await page.goto(`${base}${url}`);
  await page.getByText(text, { exact: false }).first().waitFor({ timeout: 10_000 });
  await page.waitForFunction(() => document.querySelector('[aria-busy="true"]') === null, null, { timeout: 10_000 });
  await page.locator('header').getByRole('button', { name: 'Connect wallet' }).click();
  await page.locator(`header a.wallet[href="/address/${wallet.account.address.toLowerCase()}"]`).waitFor({ timeout: 10_000 });
}

/** The result line of the form in `region` once the transaction is decided: its state, hash and text. */
async function result(page: Page, region: string): Promise<{ state: string; hash: string; text: string; block: number | null }> {
  const box = page.locator(`[aria-label="${region}"] .tx-result`);
  await page.locator(`[aria-label="${region}"] .tx-result:is([data-state="success"], [data-state="reverted"], [data-state="error"])`).waitFor({ timeout: 30_000 });
  const link = box.locator('a[href^="/tx/"]');
  const hash = (await link.count()) > 0 ? ((await link.textContent()) ?? '') : '';
  if (hash) assert.equal(await link.getAttribute('href'), `/tx/${hash}`, 'the hash links to its page');
  const blockLink = box.locator('a[href^="/block/"]');
  return {
    state: (await box.getAttribute('data-state')) ?? '',
    hash,
    text: (await box.textContent()) ?? '',
    block: (await blockLink.count()) > 0 ? Number(await blockLink.textContent()) : null,
  };
}

/** The receipt of the wallet's last transaction, which must be the one the page shows. */
async function lastSent(shown: { hash: string; block: number | null }, to: string): Promise<Obj> {
  const last = wallet.sent.at(-1)!;
  assert.equal(shown.hash, last.hash, 'the page shows the hash the wallet returned');
  assert.equal(last.to, to.toLowerCase());
  const receipt = await rpc<Obj>(node.rpcUrl, 'eth_getTransactionReceipt', [last.hash]);
  assert.equal(shown.block, Number(receipt.blockNumber), 'the page shows the receipt block');
  return receipt;
}

const waitFor = async <T>(what: string, check: () => Promise<T | undefined>, ms = 20_000): Promise<T> => {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    const v = await check();
    if (v !== undefined) return v;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`timed out waiting for ${what}`);
};

before(async () => {
  assert.ok(existsSync(path.join(WEB_DIR, 'index.html')), `the web page is not built in ${WEB_DIR}: run node scripts/build-web.mjs`);
  browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox'] });
  dataDir = mkdtempSync(path.join(os.tmpdir(), 'svc-explorer-wallet-'));
  node = await startNode(devnetConfig(dataDir, { blockTimeMs: 100 }), { stakingParams: STAKING, governanceParams: GOVERNANCE, rentParams: RENT });
  base = node.explorerUrl;
  const keys = devPrivateKeys(5);
  const chain = svcDevnet(node.rpcUrl);
  client = createPublicClient({ chain, transport: http(node.rpcUrl), pollingInterval: 25 });
  const send = async (key: Hex, to: Address | undefined, data: Hex, value = 0n) => {
    const w = createWalletClient({ account: privateKeyToAccount(key), chain, transport: http(node.rpcUrl), pollingInterval: 25 });
    const hash = to ? await w.sendTransaction({ to, data, value, gas: 6_000_000n }) : await w.sendTransaction({ data, value, gas: 6_000_000n });
    const receipt = await client.waitForTransactionReceipt({ hash, pollingInterval: 25 });
    assert.equal(receipt.status, 'success');
    return receipt;
  };
  validator = privateKeyToAccount(keys[0]!).address;
  wallet = new DevWallet(privateKeyToAccount(keys[2]!), node.rpcUrl);

  // Proposal one holds the minimum deposit (voting); proposal two a tenth of it (taking deposits).
  const submit = async (title: string, deposit: bigint) => {
    const r = await send(keys[3]!, system.governanceAddress, encodeFunctionData({ abi: GOV_ABI, functionName: 'submitText', args: [title, 'From the wallet test.'] }), deposit);
    const submitted = r.logs.map((l) => decodeEventLog({ abi: GOV_ABI, data: l.data, topics: l.topics, strict: false }) as { eventName: string; args: Obj }).find((e) => e.eventName === 'ProposalSubmitted');
    return Number(submitted!.args.proposalId);
  };
  votingId = await submit('Vote here', GOVERNANCE.minDeposit);
  depositId = await submit('Deposit here', GOVERNANCE.minDeposit / 10n);

  // A contract with 100 storage slots and no deposit: it owes rent from the next epoch on.
  const target = compileContracts('RentTarget.sol').RentTarget!;
  rentTarget = (await send(keys[4]!, undefined, target.bytecode)).contractAddress!;
  await send(keys[4]!, rentTarget, encodeFunctionData({ abi: target.abi, functionName: 'set', args: [0n, 100n, 1n] }));

  context = await browser.newContext({ viewport: PHONE });
  await context.exposeBinding('svcTestWallet', async (_source, method: string, params: unknown[]) => {
    try {
      return { result: await wallet.request(method, params) };
    } catch (err) {
      const e = err as { code?: number; message: string };
      return { error: { code: e.code ?? -32603, message: e.message } };
    }
  });
  await context.addInitScript(() => {
    const listeners: Record<string, ((v: unknown) => void)[]> = {};
    window.ethereum = {
      async request({ method, params }: { method: string; params?: unknown[] }) {
        const answer = await window.svcTestWallet(method, params ?? []);
        if (answer.error) throw Object.assign(new Error(answer.error.message), { code: answer.error.code });
        if (method === 'wallet_switchEthereumChain') for (const l of listeners['chainChanged'] ?? []) l(params?.[0]);
        return answer.result;
      },
      on(event: string, listener: (v: unknown) => void) {
        (listeners[event] ??= []).push(listener);
      },
    };
  });
});

after(async () => {
  await context?.close();
  await browser?.close();
  await node?.stop();
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
});

describe('GET /network/modules', () => {
  it("is each module's address and ABI functions with their selectors, the vote options and the chain id", async () => {
    const res = await fetch(`${base}/api/v1/network/modules`);
    assert.equal(res.status, 200);
    const { data } = (await res.json()) as { data: Obj };
    assert.equal(data.chainId, DEV_CHAIN_ID);
    assert.deepEqual(data.voteOptions, ['yes', 'abstain', 'no', 'no-with-veto']);
    const addresses: Record<string, string> = { staking: system.stakingAddress, compute: system.computeAddress, governance: system.governanceAddress, bridge: system.bridgeAddress, rent: system.rentAddress };
    assert.deepEqual(data.modules.map((m: Obj) => m.name).sort(), Object.keys(addresses).sort());
    for (const m of data.modules) {
      assert.equal(m.address, addresses[m.name]!.toLowerCase());
      const abi = (abiOf(m.name).filter((f) => f.type === 'function') as AbiFunction[]).map((f) => {
        const signature = `${f.name}(${f.inputs.map((i) => i.type).join(',')})`;
        return { name: f.name, signature, selector: toFunctionSelector(f), stateMutability: f.stateMutability, inputs: f.inputs.map((i) => ({ name: i.name, type: i.type })) };
      });
      assert.deepEqual(m.functions, abi, `${m.name}'s functions`);
    }
    // The selectors the page uses are the ones viem encodes with.
    const delegate = data.modules.find((m: Obj) => m.name === 'staking').functions.find((f: Obj) => f.name === 'delegate');
    assert.equal(delegate.selector, encodeFunctionData({ abi: abiOf('staking'), functionName: 'delegate', args: [validator] }).slice(0, 10));
  });
});

describe('acting from a browser wallet', { timeout: 240_000 }, () => {
  it('connects from the header, switching the wallet to this chain', async () => {
    const { page, errors } = await walletPage();
    await openConnected(page, '/validators', 'genesis');
    assert.equal(wallet.chainId, DEV_CHAIN_ID);
    assert.ok(wallet.calls.indexOf('eth_requestAccounts') < wallet.calls.indexOf('wallet_switchEthereumChain'), wallet.calls.join(' '));
    assert.equal(await page.locator('header a.wallet').getAttribute('title'), `wallet ${wallet.account.address.toLowerCase()}`);
    assert.deepEqual(errors, []);
    await page.close();
  });

  it("delegates on the validator's page; undelegating more than delegated shows the revert and its reason; claims the rewards", async () => {
    const { page, errors } = await walletPage();
    await openConnected(page, `/validator/${validator}`, 'Delegators');
    const form = page.locator('[aria-label="delegation actions"]');
    await form.getByLabel('Amount (ETH)').fill('5');
    await form.getByRole('button', { name: 'Delegate', exact: true }).click();
    const delegated = await result(page, 'delegation actions');
    assert.equal(delegated.state, 'success', delegated.text);
    const receipt = await lastSent(delegated, system.stakingAddress);
    assert.equal(receipt.status, '0x1');
    assert.equal(wallet.sent.at(-1)!.value, 5n * ETHER);
    const delegation = await rpc<Obj>(node.rpcUrl, 'svc_getDelegation', [wallet.account.address, validator]);
    assert.equal(BigInt(delegation.balance), 5n * ETHER);

    await form.getByLabel('Amount (ETH)').fill('1000');
    await form.getByRole('button', { name: 'Undelegate' }).click();
    const refused = await result(page, 'delegation actions');
    assert.equal(refused.state, 'reverted', refused.text);
    const failed = await lastSent(refused, system.stakingAddress);
    assert.equal(failed.status, '0x0');
    // The reason shown is the node's for that call (eth_call runs the module at the head).
    const sent = wallet.sent.at(-1)!;
    const answer = await rpc(node.rpcUrl, 'eth_call', [{ from: wallet.account.address, to: sent.to, data: sent.data }, 'latest']).then(
      () => assert.fail('eth_call of the refused undelegation answered'),
      (err: JsonRpcError) => err,
    );
    assert.equal(answer.code, 3);
    const reason = answer.message.replace(/^execution reverted: /, '');
    assert.match(reason, /^staking: /);
    assert.equal(await page.locator('[aria-label="delegation actions"] .tx-result .reason').textContent(), ` ${reason}`);
    assert.equal(BigInt((await rpc<Obj>(node.rpcUrl, 'svc_getDelegation', [wallet.account.address, validator])).balance), 5n * ETHER, 'the delegation is unchanged');

    // The delegation has earned block rewards by now: claiming pays them (the module's log says how much).
    await waitFor('pending rewards', async () => (BigInt((await rpc<Obj>(node.rpcUrl, 'svc_getDelegation', [wallet.account.address, validator])).pendingRewards) > 0n ? true : undefined));
    await form.getByRole('button', { name: 'Claim rewards' }).click();
    const claimed = await result(page, 'delegation actions');
    assert.equal(claimed.state, 'success', claimed.text);
    const claim = await lastSent(claimed, system.stakingAddress);
    const log = claim.logs
      .map((l: Obj) => decodeEventLog({ abi: STAKING_ABI, data: l.data, topics: l.topics, strict: false }) as { eventName: string; args: Obj })
      .find((e: { eventName: string }) => e.eventName === 'RewardsClaimed');
    assert.ok(log, 'a RewardsClaimed log');
    assert.equal(log.args.delegator.toLowerCase(), wallet.account.address.toLowerCase());
    assert.ok(log.args.rewards > 0n);
    const balanceAt = async (block: number) => BigInt(await rpc<Hex>(node.rpcUrl, 'eth_getBalance', [wallet.account.address, toHex(block)]));
    const at = Number(claim.blockNumber);
    assert.equal((await balanceAt(at)) - (await balanceAt(at - 1)), log.args.rewards - BigInt(claim.gasUsed) * BigInt(claim.effectiveGasPrice), 'the rewards reach the wallet');

    const scrollWidth = await page.evaluate(() => document.scrollingElement.scrollWidth);
    assert.ok(scrollWidth <= PHONE.width, `the validator page is ${scrollWidth} px wide`);
    assert.deepEqual(errors, []);
    await page.close();
  });

  it("votes on a proposal in its voting period from the proposal's page", async () => {
    const { page, errors } = await walletPage();
    await openConnected(page, `/governance/proposals/${votingId}`, 'Vote here');
    const form = page.locator('[aria-label="proposal actions"]');
    await form.getByLabel('Vote').selectOption({ label: 'yes' });
    await form.getByRole('button', { name: 'Vote', exact: true }).click();
    const voted = await result(page, 'proposal actions');
    assert.equal(voted.state, 'success', voted.text);
    assert.equal((await lastSent(voted, system.governanceAddress)).status, '0x1');
    const option = await client.readContract({ address: system.governanceAddress as Address, abi: GOV_ABI, functionName: 'getVote', args: [BigInt(votingId), wallet.account.address] });
    assert.equal(Number(option), 1, 'getVote: yes');
    const proposal = await rpc<Obj>(node.rpcUrl, 'svc_getProposal', [votingId]);
    // The voter's 5 ETH delegation counts for yes.
    assert.equal(BigInt(proposal.tally.yes), 5n * ETHER);
    assert.deepEqual(errors, []);
    await page.close();
  });

  it('deposits on a proposal in its deposit period', async () => {
    const { page, errors } = await walletPage();
    const before = BigInt((await rpc<Obj>(node.rpcUrl, 'svc_getProposal', [depositId])).totalDeposit);
    await openConnected(page, `/governance/proposals/${depositId}`, 'Deposit here');
    const form = page.locator('[aria-label="proposal actions"]');
    assert.equal(await form.getByRole('button', { name: 'Vote', exact: true }).count(), 0, 'no vote before the voting period');
    await form.getByLabel('Deposit (ETH)').fill('0.5');
    await form.getByRole('button', { name: 'Deposit' }).click();
    const deposited = await result(page, 'proposal actions');
    assert.equal(deposited.state, 'success', deposited.text);
    assert.equal((await lastSent(deposited, system.governanceAddress)).status, '0x1');
    assert.equal(BigInt((await rpc<Obj>(node.rpcUrl, 'svc_getProposal', [depositId])).totalDeposit), before + ETHER / 2n);
    assert.deepEqual(errors, []);
    await page.close();
  });

  it("pays a contract's rent from its address page", async () => {
    const rentInfo = () => rpc<Obj>(node.rpcUrl, 'svc_getAccountRentInfo', [rentTarget]);
    // Several epochs owed, so that paying is told apart from the next epoch's rent.
    const owed = await waitFor('rent owed', async () => {
      const o = BigInt((await rentInfo()).rentOwed);
      return o >= 4n * RENT_PER_EPOCH ? o : undefined;
    });
    const { page, errors } = await walletPage();
    await openConnected(page, `/address/${rentTarget}`, 'Overview');
    const form = page.locator('[aria-label="rent actions"]');
    await form.getByLabel('Amount (ETH)').fill('0.001');
    await form.getByRole('button', { name: 'Pay rent' }).click();
    const paid = await result(page, 'rent actions');
    assert.equal(paid.state, 'success', paid.text);
    const receipt = await lastSent(paid, system.rentAddress);
    assert.equal(receipt.status, '0x1');
    const event = receipt.logs
      .map((l: Obj) => decodeEventLog({ abi: RENT_ABI, data: l.data, topics: l.topics, strict: false }) as { eventName: string; args: Obj })
      .find((e: { eventName: string }) => e.eventName === 'RentPaid');
    assert.ok(event, 'a RentPaid log');
    assert.equal(event.args.payer.toLowerCase(), wallet.account.address.toLowerCase());
    assert.ok(event.args.amount >= owed, `paid ${event.args.amount}, owed ${owed} before`);
    assert.equal(event.args.rentOwed, 0n);
    // At most the epochs since the payment are owed now.
    const after = await rentInfo();
    const epochsSince = BigInt(after.currentEpoch - epochOfHeight(Number(receipt.blockNumber), STAKING)) + 1n;
    assert.ok(BigInt(after.rentOwed) <= epochsSince * RENT_PER_EPOCH, `owed ${after.rentOwed} after paying`);
    assert.deepEqual(errors, []);
    await page.close();
  });
});
