// The explorer's Contracts category and its Etherscan-compatible /api, against a real node (RocksDB
// in a temp dir), real contracts deployed with viem, solc-js verifying them, and Hardhat's own
// verifier (@nomicfoundation/hardhat-verify) run as a child process against the /api endpoint.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import {
  createPublicClient,
  createWalletClient,
  encodeAbiParameters,
  http,
  type Abi,
  type Address,
  type Chain,
  type Hex,
  type PrivateKeyAccount,
  type PublicClient,
  type Transport,
  type WalletClient,
} from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import type { NodeConfig } from '../src/config.js';
import { compareRuntime, splitMetadata } from '../src/explorer/contracts/bytecode.js';
import type { Indexer } from '../src/explorer/indexer/indexer.js';
import { devnetConfig } from './support/node-config.js';
import { startNode, type RunningNode } from '../src/node.js';
import { devPrivateKeys } from './support/dev-accounts.js';
import { repoRoot } from './support/repo.js';
import { contractsDir } from './support/solc.js';
import { svcDevnet } from './support/viem-chain.js';

const require = createRequire(import.meta.url);

interface StandardJsonInput {
  language: 'Solidity';
  sources: Record<string, { content: string }>;
  settings: Record<string, unknown>;
}

interface Compiled {
  abi: Abi;
  bytecode: Hex;
}

/** The settings test/support/solc.ts deploys with (evmVersion: solc's default, prague). */
const SETTINGS = { optimizer: { enabled: true, runs: 200 } };

/**
 * Compiles `fileName` of test/contracts (or `content` in its place) and returns the standard JSON
 * input with every imported source inlined, as a verifier needs it, and the compiled contracts.
 */
function compileStandard(fileName: string, content = readFileSync(path.join(contractsDir(), fileName), 'utf8')): { input: StandardJsonInput; contracts: Record<string, Compiled> } {
  const solc = require('solc') as { compile(input: string, cb: { import: (p: string) => { contents: string } | { error: string } }): string };
  const imported: Record<string, { content: string }> = {};
  const findImport = (p: string) => {
    for (const file of [path.join(contractsDir(), p), path.join(repoRoot(), 'node_modules', p)]) {
      if (existsSync(file)) {
        const contents = readFileSync(file, 'utf8');
        imported[p] = { content: contents };
        return { contents };
      }
    }
    return { error: `not found: ${p}` };
  };
  const input = {
    language: 'Solidity' as const,
    sources: { [fileName]: { content } },
    settings: { ...SETTINGS, outputSelection: { '*': { '*': ['abi', 'evm.bytecode.object'] } } },
  };
  const out = JSON.parse(solc.compile(JSON.stringify(input), { import: findImport })) as {
    errors?: { severity: string; formattedMessage: string }[];
    contracts: Record<string, Record<string, { abi: Abi; evm: { bytecode: { object: string } } }>>;
  };
  const errors = (out.errors ?? []).filter((e) => e.severity === 'error');
  if (errors.length > 0) throw new Error(errors.map((e) => e.formattedMessage).join('\n'));
  const contracts: Record<string, Compiled> = {};
  for (const [name, c] of Object.entries(out.contracts[fileName] ?? {})) contracts[name] = { abi: c.abi, bytecode: `0x${c.evm.bytecode.object}` };
  return { input: { ...input, sources: { ...input.sources, ...imported } }, contracts };
}

const tokenSource = compileStandard('TestToken.sol');
const reverterSource = compileStandard('Reverter.sol');
/** The same Reverter with one more comment line: same code, another metadata hash. */
const reverterEdited = compileStandard('Reverter.sol', `${readFileSync(path.join(contractsDir(), 'Reverter.sol'), 'utf8')}\n// edited after deployment\n`);
const SOLC_VERSION = (require('solc') as { version(): string }).version().replace(/\.Emscripten\.clang$/, '');

let dataDir: string;
let node: RunningNode;
let indexer: Indexer;
let base: string;
let publicClient: PublicClient<Transport, Chain>;
let wallet: WalletClient<Transport, Chain, PrivateKeyAccount>;
let deployer: PrivateKeyAccount;

/** Contracts deployed for the tests, by role. */
const at: Record<string, Address> = {};
const TOKEN_A_SUPPLY = 1_000n * 10n ** 18n;

async function deploy(c: Compiled, args: unknown[] = []): Promise<Address> {
  const hash = await wallet.deployContract({ abi: c.abi, bytecode: c.bytecode, args } as never);
  const receipt = await publicClient.waitForTransactionReceipt({ hash });
  assert.equal(receipt.status, 'success');
  return receipt.contractAddress!;
}

interface Reply {
  status: number;
  body: any;
}

async function api(pathname: string, init: RequestInit = {}): Promise<Reply> {
  const res = await fetch(`${base}${pathname}`, init);
  return { status: res.status, body: await res.json() };
}

const postJson = (pathname: string, body: unknown): Promise<Reply> =>
  api(pathname, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body) });

const verifyBody = (input: StandardJsonInput, contractName: string, extra: Record<string, unknown> = {}) => ({
  input,
  compilerVersion: `v${SOLC_VERSION}`,
  contractName,
  ...extra,
});

type Encoding = 'query' | 'form' | 'json';

/** One call of the Etherscan-compatible API: GET with a query, or POST with a form or JSON body. */
async function etherscan(params: Record<string, string>, encoding: Encoding = 'query'): Promise<Reply> {
  if (encoding === 'query') return api(`/api?${new URLSearchParams(params)}`);
  if (encoding === 'form') {
    return api('/api', { method: 'POST', headers: { 'Content-Type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams(params).toString() });
  }
  return api('/api', { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(params) });
}

const verifyParams = (address: Address, input: StandardJsonInput, contractName: string, args = ''): Record<string, string> => ({
  module: 'contract',
  action: 'verifysourcecode',
  contractaddress: address,
  sourceCode: JSON.stringify(input),
  codeformat: 'solidity-standard-json-input',
  contractname: contractName,
  compilerversion: `v${SOLC_VERSION}`,
  constructorArguements: args,
});

/** Polls checkverifystatus until it is no longer pending; returns every answer seen. */
async function pollStatus(guid: string, encoding: Encoding = 'query'): Promise<any[]> {
  const seen: any[] = [];
  for (;;) {
    const { status, body } = await etherscan({ module: 'contract', action: 'checkverifystatus', guid }, encoding);
    assert.equal(status, 200);
    seen.push(body);
    if (body.result !== 'Pending in queue') return seen;
    await new Promise((r) => setTimeout(r, 100));
  }
}

function config(): NodeConfig {
  return devnetConfig(dataDir);
}

describe('runtime bytecode comparison', () => {
  // Runtime code: PUSH1 0x2a, PUSH32 <immutable>, then a CBOR tail {"solc": 0x00081e} and its length.
  const tail = (v: number) => Buffer.from([0xa1, 0x64, ...Buffer.from('solc'), 0x43, 0x00, 0x08, v, 0x00, 0x0a]);
  const code = (immutable: number, v = 0x1e) => Buffer.concat([Buffer.from([0x60, 0x2a, 0x7f]), Buffer.alloc(31), Buffer.from([immutable]), tail(v)]);
  const immutables = { '7': [{ start: 3, length: 32 }] };

  it('masks immutables: code deployed with a value there matches in full', () => {
    assert.equal(compareRuntime(code(0x99), code(0), immutables), 'full');
    assert.equal(compareRuntime(code(0x99), code(0), {}), null, 'without the reference the value differs');
  });

  it('a differing metadata tail is a partial match; a differing body none', () => {
    assert.equal(compareRuntime(code(0, 0x1d), code(0), immutables), 'partial');
    const other = code(0);
    other[1] = 0x2b;
    assert.equal(compareRuntime(code(0), other, immutables), null);
    assert.deepEqual(splitMetadata(code(0)).metadata, tail(0x1e));
  });

  it("masks a deployed library's own address in its call guard", () => {
    const library = (address: number) => Buffer.concat([Buffer.from([0x73]), Buffer.alloc(20, address), Buffer.from([0x30, 0x14]), tail(0x1e)]);
    assert.equal(compareRuntime(library(0xab), library(0), {}), 'full');
  });
});

describe('explorer contracts', { timeout: 120_000 }, () => {
  before(async () => {
    dataDir = mkdtempSync(path.join(tmpdir(), 'svc-explorer-contracts-'));
    // The node's own explorer: its indexer, its access control (loopback is exempt on this devnet) and every route.
    node = await startNode(config());
    indexer = node.explorer.services.indexer;
    base = node.explorerUrl;

    const chain = svcDevnet(node.rpcUrl);
    deployer = privateKeyToAccount(devPrivateKeys(2)[1]!);
    publicClient = createPublicClient({ chain, transport: http(node.rpcUrl), pollingInterval: 50 });
    wallet = createWalletClient({ account: deployer, chain, transport: http(node.rpcUrl), pollingInterval: 50 });
    at.tokenA = await deploy(tokenSource.contracts.TestToken!, [TOKEN_A_SUPPLY]);
    at.tokenB = await deploy(tokenSource.contracts.TestToken!, [5n]);
    at.tokenC = await deploy(tokenSource.contracts.TestToken!, [7n]);
    at.reverterA = await deploy(reverterSource.contracts.Reverter!);
    at.reverterB = await deploy(reverterSource.contracts.Reverter!);
    at.reverterC = await deploy(reverterSource.contracts.Reverter!);
    await indexer.catchUp();
  });

  after(async () => {
    await node?.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  describe('GET /contracts/{address}: creation info from the indexes', () => {
    it('reports creator, creation transaction, block and time of an unverified contract', async () => {
      const { status, body } = await api(`/api/v1/contracts/${at.tokenA}`);
      assert.equal(status, 200);
      const receipt = await publicClient.getTransactionReceipt({ hash: body.data.txHash });
      const block = await publicClient.getBlock({ blockNumber: receipt.blockNumber });
      assert.deepEqual(body.data, {
        address: at.tokenA!.toLowerCase(),
        codeSize: ((await publicClient.getCode({ address: at.tokenA! })!)!.length - 2) / 2,
        creator: deployer.address.toLowerCase(),
        txHash: receipt.transactionHash,
        blockNumber: Number(receipt.blockNumber),
        timestamp: Number(block.timestamp),
        verified: false,
        contractName: null,
        compilerVersion: null,
        optimizer: null,
        evmVersion: null,
        viaIR: null,
        license: null,
        match: null,
        verifiedAt: null,
      });
      assert.equal(receipt.contractAddress?.toLowerCase(), at.tokenA!.toLowerCase());
    });

    it('answers 404 for an account without code', async () => {
      const { status, body } = await api(`/api/v1/contracts/${deployer.address}`);
      assert.equal(status, 404);
      assert.equal(body.ok, false);
      assert.match(body.error, /no contract code/);
    });

    it('answers 400 for a malformed address', async () => {
      const { status, body } = await api('/api/v1/contracts/0x1234');
      assert.equal(status, 400);
      assert.match(body.error, /address/);
    });

    it('answers 404 for the ABI and sources of an unverified contract', async () => {
      for (const sub of ['abi', 'source']) {
        const { status, body } = await api(`/api/v1/contracts/${at.tokenC}/${sub}`);
        assert.equal(status, 404);
        assert.match(body.error, /not verified/);
      }
      assert.equal((await api(`/api/v1/contracts/${deployer.address}/abi`)).status, 404);
      assert.equal((await api('/api/v1/contracts/nope/source')).status, 400);
    });
  });

  describe('POST /contracts/{address}/verify', () => {
    it('verifies a contract whose sources compile to its code, byte for byte', async () => {
      const { status, body } = await postJson(`/api/v1/contracts/${at.tokenA}/verify`, verifyBody(tokenSource.input, 'TestToken.sol:TestToken'));
      assert.equal(status, 200, JSON.stringify(body));
      assert.equal(body.data.status, 'pass');
      assert.equal(body.data.match, 'full');
      assert.equal(body.data.reason, null);
      assert.equal(body.data.compilerVersion, SOLC_VERSION);
      assert.match(body.data.guid, /^[a-z0-9]{50}$/);

      const status2 = await api(`/api/v1/contracts/verifications/${body.data.guid}`);
      assert.equal(status2.status, 200);
      assert.deepEqual(status2.body.data, body.data);
    });

    it('then reports the contract verified, with compiler, name and optimizer settings', async () => {
      const { body } = await api(`/api/v1/contracts/${at.tokenA}`);
      assert.equal(body.data.verified, true);
      assert.equal(body.data.contractName, 'TestToken');
      assert.equal(body.data.compilerVersion, SOLC_VERSION);
      assert.deepEqual(body.data.optimizer, { enabled: true, runs: 200 });
      assert.equal(body.data.evmVersion, null);
      assert.equal(body.data.license, 'Apache-2.0');
      assert.equal(body.data.match, 'full');
      assert.equal(body.data.creator, deployer.address.toLowerCase());
    });

    it('serves the ABI and the sources, with the constructor arguments read from the creation transaction', async () => {
      const abi = await api(`/api/v1/contracts/${at.tokenA}/abi`);
      assert.equal(abi.status, 200);
      assert.deepEqual(abi.body.data.abi, tokenSource.contracts.TestToken!.abi);
      const source = await api(`/api/v1/contracts/${at.tokenA}/source`);
      assert.equal(source.status, 200);
      assert.equal(source.body.data.sourcePath, 'TestToken.sol');
      assert.equal(source.body.data.contractName, 'TestToken');
      assert.deepEqual(source.body.data.sources, tokenSource.input.sources);
      assert.deepEqual(source.body.data.settings.optimizer, SETTINGS.optimizer);
      assert.equal(source.body.data.constructorArguments, encodeAbiParameters([{ type: 'uint256' }], [TOKEN_A_SUPPLY]));
      assert.ok(Object.keys(source.body.data.sources).some((p) => p.startsWith('@openzeppelin/contracts/')), 'imports are kept');
    });

    it('reads view functions of the verified contract with its ABI, and refuses what it cannot read', async () => {
      const read = (body: unknown) => postJson(`/api/v1/contracts/${at.tokenA}/read`, body);
      const supply = await read({ method: 'totalSupply' });
      assert.equal(supply.status, 200, JSON.stringify(supply.body));
      assert.deepEqual(supply.body.data, {
        method: 'totalSupply()',
        outputs: [{ name: '', type: 'uint256', value: TOKEN_A_SUPPLY.toString() }],
        returnData: encodeAbiParameters([{ type: 'uint256' }], [TOKEN_A_SUPPLY]),
      });
      const balance = await read({ method: 'balanceOf(address)', args: [deployer.address] });
      assert.equal(balance.body.data.outputs[0].value, TOKEN_A_SUPPLY.toString());
      assert.equal((await read({ method: 'symbol' })).body.data.outputs[0].value, 'TST');
      const allowance = await read({ method: 'allowance', args: [deployer.address, deployer.address] });
      assert.equal(allowance.body.data.outputs[0].value, '0');
      for (const [body, pattern] of [
        [{ method: 'transfer', args: [deployer.address, '1'] }, /nonpayable: only view and pure functions are read/],
        [{ method: 'nosuch' }, /has no function nosuch/],
        [{ method: 'balanceOf', args: [] }, /takes 1 arguments, got 0/],
        [{ method: 'balanceOf', args: ['0x12'] }, /arguments of balanceOf\(address\)/],
        [{ method: 'allowance', args: [deployer.address, 7.5] }, /arguments of allowance/],
        // A 1 MB argument: refused with a short message that does not repeat it.
        [{ method: 'balanceOf', args: [`0x${'f'.repeat(1_000_000)}`] }, /arguments of balanceOf\(address\)/],
        [{ method: `x${'y'.repeat(1_000)}` }, /has no function xy{15}… \(1001 characters\)/],
      ] as const) {
        const r = await read(body);
        assert.equal(r.status, 400, JSON.stringify(body).slice(0, 200));
        assert.match(r.body.error, pattern);
        assert.ok(r.body.error.length < 300, `a ${r.body.error.length}-character message`);
      }
      assert.equal((await read({ method: 'totalSupply', extra: 1 })).status, 400, 'unknown members are refused');
      assert.equal((await postJson(`/api/v1/contracts/${at.tokenC}/read`, { method: 'totalSupply' })).status, 404, 'an unverified contract has no ABI to read with');
    });

    it('answers 409 for a contract already verified', async () => {
      const { status, body } = await postJson(`/api/v1/contracts/${at.tokenA}/verify`, verifyBody(tokenSource.input, 'TestToken.sol:TestToken'));
      assert.equal(status, 409);
      assert.match(body.error, /already verified/);
    });

    it('accepts sources that differ only in the metadata tail as a partial match; a concurrent second submission is 409', async () => {
      const body = verifyBody(reverterEdited.input, 'Reverter.sol:Reverter');
      const [a, b] = await Promise.all([postJson(`/api/v1/contracts/${at.reverterA}/verify`, body), postJson(`/api/v1/contracts/${at.reverterA}/verify`, body)]);
      const [passed, refused] = a.status === 200 ? [a, b] : [b, a];
      assert.equal(passed.status, 200, JSON.stringify(passed.body));
      assert.equal(passed.body.data.status, 'pass');
      assert.equal(passed.body.data.match, 'partial');
      assert.equal(refused.status, 409);
      assert.match(refused.body.error, /in progress|already verified/);
      const source = await api(`/api/v1/contracts/${at.reverterA}/source`);
      assert.equal(source.body.data.match, 'partial');
      assert.equal(source.body.data.constructorArguments, '0x');
    });

    it('fails, with the reason, for sources of another contract', async () => {
      const { status, body } = await postJson(`/api/v1/contracts/${at.tokenC}/verify`, verifyBody(reverterSource.input, 'Reverter.sol:Reverter'));
      assert.equal(status, 200);
      assert.equal(body.data.status, 'fail');
      assert.match(body.data.reason, /does not match the code at/);
      const record = await api(`/api/v1/contracts/verifications/${body.data.guid}`);
      assert.equal(record.body.data.status, 'fail');
      assert.equal(record.body.data.reason, body.data.reason);
      assert.equal((await api(`/api/v1/contracts/${at.tokenC}`)).body.data.verified, false);
    });

    it('fails for constructor arguments other than those deployed', async () => {
      const args = encodeAbiParameters([{ type: 'uint256' }], [8n]);
      const { body } = await postJson(`/api/v1/contracts/${at.tokenC}/verify`, verifyBody(tokenSource.input, 'TestToken.sol:TestToken', { constructorArguments: args }));
      assert.equal(body.data.status, 'fail');
      assert.match(body.data.reason, /constructor arguments do not match/);
    });

    it('fails for sources that do not compile', async () => {
      const broken = { ...reverterSource.input, sources: { 'Reverter.sol': { content: 'contract Reverter { function f() { } ' } } };
      const { body } = await postJson(`/api/v1/contracts/${at.tokenC}/verify`, verifyBody(broken, 'Reverter.sol:Reverter'));
      assert.equal(body.data.status, 'fail');
      assert.match(body.data.reason, /^compilation failed/);
    });

    it('refuses a compiler version that is not installed, naming the available ones (400)', async () => {
      const { status, body } = await postJson(`/api/v1/contracts/${at.tokenC}/verify`, { ...verifyBody(tokenSource.input, 'TestToken.sol:TestToken'), compilerVersion: 'v0.8.19+commit.7dd6d404' });
      assert.equal(status, 400);
      assert.match(body.error, /v0\.8\.19\+commit\.7dd6d404 is not available/);
      assert.ok(body.error.includes(`v${SOLC_VERSION}`), body.error);
    });

    it('answers 404 for an address without code', async () => {
      const { status, body } = await postJson(`/api/v1/contracts/${deployer.address}/verify`, verifyBody(tokenSource.input, 'TestToken.sol:TestToken'));
      assert.equal(status, 404);
      assert.match(body.error, /no contract code/);
    });

    it('answers 400 for bad input', async () => {
      const url = `/api/v1/contracts/${at.tokenC}/verify`;
      const good = verifyBody(tokenSource.input, 'TestToken.sol:TestToken');
      const cases: [unknown, RegExp][] = [
        [{ ...good, contractName: undefined }, /contractName is required/],
        [{ ...good, contractName: 'TestToken' }, /path:Name/],
        [{ ...good, contractName: 'Missing.sol:TestToken' }, /not among the sources/],
        [{ ...good, compilerVersion: 'latest' }, /compilerVersion/],
        [{ ...good, input: { ...good.input, language: 'Vyper' } }, /language/],
        [{ ...good, input: { language: 'Solidity', sources: { 'A.sol': { urls: ['ipfs://x'] } } }, contractName: 'A.sol:A' }, /no inline content/],
        [{ ...good, input: { language: 'Solidity', sources: {} } }, /no sources/],
        [{ ...good, constructorArguments: '0xzz' }, /constructorArguments|hex/],
        [{ ...good, extra: 1 }, /not allowed/],
      ];
      for (const [body, error] of cases) {
        const r = await postJson(url, body);
        assert.equal(r.status, 400, JSON.stringify(body).slice(0, 200));
        assert.match(r.body.error, error);
      }
      const notJson = await api(url, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: '{' });
      assert.equal(notJson.status, 400);
      assert.equal((await postJson('/api/v1/contracts/0xabc/verify', good)).status, 400);
    });
  });

  describe('GET /contracts/verifications/{guid}', () => {
    it('answers 404 for an unknown GUID and 400 for a malformed one', async () => {
      assert.equal((await api(`/api/v1/contracts/verifications/${'a'.repeat(50)}`)).status, 404);
      assert.equal((await api('/api/v1/contracts/verifications/short')).status, 400);
    });
  });

  describe('Etherscan-compatible /api', () => {
    it('verifysourcecode (POST, form) answers a GUID that is pending, then "Pass - Verified"', async () => {
      const args = encodeAbiParameters([{ type: 'uint256' }], [5n]).slice(2);
      const { status, body } = await etherscan(verifyParams(at.tokenB!, tokenSource.input, 'TestToken.sol:TestToken', args), 'form');
      assert.equal(status, 200);
      assert.equal(body.status, '1');
      assert.equal(body.message, 'OK');
      assert.match(body.result, /^[a-z0-9]{50}$/);
      const seen = await pollStatus(body.result);
      assert.deepEqual(seen[0], { status: '0', message: 'NOTOK', result: 'Pending in queue' });
      assert.deepEqual(seen.at(-1), { status: '1', message: 'OK', result: 'Pass - Verified' });
    });

    it('verifysourcecode (GET) and checkverifystatus (POST, JSON)', async () => {
      const { body } = await etherscan(verifyParams(at.reverterB!, reverterSource.input, 'Reverter.sol:Reverter'));
      assert.equal(body.status, '1', JSON.stringify(body));
      const seen = await pollStatus(body.result, 'json');
      assert.equal(seen.at(-1).result, 'Pass - Verified');
    });

    it('verifysourcecode (POST, JSON) and checkverifystatus (POST, form)', async () => {
      const { body } = await etherscan(verifyParams(at.reverterC!, reverterSource.input, 'Reverter.sol:Reverter'), 'json');
      assert.equal(body.status, '1', JSON.stringify(body));
      const seen = await pollStatus(body.result, 'form');
      assert.equal(seen.at(-1).result, 'Pass - Verified');
    });

    it('reports a failed verification with Etherscan\'s text', async () => {
      const { body } = await etherscan(verifyParams(at.tokenC!, reverterSource.input, 'Reverter.sol:Reverter'), 'form');
      assert.equal(body.status, '1');
      const seen = await pollStatus(body.result);
      assert.deepEqual(seen.at(-1), { status: '0', message: 'NOTOK', result: 'Fail - Unable to verify' });
      // The reason is in the explorer's own API.
      const record = await api(`/api/v1/contracts/verifications/${body.result}`);
      assert.match(record.body.data.reason, /does not match/);
    });

    it('refuses a verified contract, an address without code, an unknown compiler and other formats', async () => {
      const again = await etherscan(verifyParams(at.tokenB!, tokenSource.input, 'TestToken.sol:TestToken'), 'form');
      assert.deepEqual(again.body, { status: '0', message: 'NOTOK', result: 'Contract source code already verified' });
      const eoa = await etherscan(verifyParams(deployer.address, tokenSource.input, 'TestToken.sol:TestToken'), 'form');
      assert.deepEqual(eoa.body, { status: '0', message: 'NOTOK', result: `Unable to locate ContractCode at ${deployer.address.toLowerCase()}` });
      const old = await etherscan({ ...verifyParams(at.tokenC!, tokenSource.input, 'TestToken.sol:TestToken'), compilerversion: 'v0.8.19+commit.7dd6d404' }, 'form');
      assert.equal(old.body.status, '0');
      assert.match(old.body.result, /v0\.8\.19\+commit\.7dd6d404 is not available.*v0\.8\.30\+commit\.73712a01/);
      const single = await etherscan({ ...verifyParams(at.tokenC!, tokenSource.input, 'TestToken.sol:TestToken'), codeformat: 'solidity-single-file' }, 'form');
      assert.equal(single.body.status, '0');
      assert.match(single.body.result, /solidity-standard-json-input/);
      const garbled = await etherscan({ ...verifyParams(at.tokenC!, tokenSource.input, 'TestToken.sol:TestToken'), sourceCode: '{nope' }, 'form');
      assert.equal(garbled.body.status, '0');
      const unknown = await etherscan({ module: 'contract', action: 'checkverifystatus', guid: 'x'.repeat(50) });
      assert.equal(unknown.body.status, '0');
    });

    for (const encoding of ['query', 'form', 'json'] as const) {
      it(`getabi and getsourcecode (${encoding === 'query' ? 'GET' : `POST, ${encoding}`})`, async () => {
        const abi = await etherscan({ module: 'contract', action: 'getabi', address: at.tokenA! }, encoding);
        assert.equal(abi.status, 200);
        assert.equal(abi.body.status, '1');
        assert.equal(abi.body.message, 'OK');
        assert.deepEqual(JSON.parse(abi.body.result), tokenSource.contracts.TestToken!.abi);

        const src = await etherscan({ module: 'contract', action: 'getsourcecode', address: at.tokenA! }, encoding);
        assert.equal(src.body.status, '1');
        const [entry] = src.body.result;
        assert.equal(entry.ContractName, 'TestToken');
        assert.equal(entry.CompilerVersion, `v${SOLC_VERSION}`);
        assert.equal(entry.OptimizationUsed, '1');
        assert.equal(entry.Runs, '200');
        assert.equal(entry.EVMVersion, 'Default');
        assert.equal(entry.LicenseType, 'Apache-2.0');
        assert.equal(entry.ConstructorArguments, encodeAbiParameters([{ type: 'uint256' }], [TOKEN_A_SUPPLY]).slice(2));
        assert.ok(entry.SourceCode.startsWith('{{') && entry.SourceCode.endsWith('}}'), 'standard JSON input in double braces');
        assert.deepEqual(JSON.parse(entry.SourceCode.slice(1, -1)).sources, tokenSource.input.sources);
        assert.deepEqual(JSON.parse(entry.ABI), tokenSource.contracts.TestToken!.abi);

        const unverifiedAbi = await etherscan({ module: 'contract', action: 'getabi', address: at.tokenC! }, encoding);
        assert.deepEqual(unverifiedAbi.body, { status: '0', message: 'NOTOK', result: 'Contract source code not verified' });
        const unverifiedSrc = await etherscan({ module: 'contract', action: 'getsourcecode', address: at.tokenC! }, encoding);
        assert.equal(unverifiedSrc.body.status, '1');
        assert.equal(unverifiedSrc.body.result[0].SourceCode, '');
        assert.equal(unverifiedSrc.body.result[0].ABI, 'Contract source code not verified');
      });
    }

    it('answers NOTOK for a bad address, module, action or chain id', async () => {
      const badAddress = await etherscan({ module: 'contract', action: 'getabi', address: '0x12' });
      assert.deepEqual(badAddress.body, { status: '0', message: 'NOTOK', result: 'Invalid Address format' });
      const badModule = await etherscan({ module: 'account', action: 'balance' });
      assert.equal(badModule.body.status, '0');
      assert.match(badModule.body.result, /Module/);
      const badAction = await etherscan({ module: 'contract', action: 'nope' }, 'form');
      assert.match(badAction.body.result, /Action/);
      const badChain = await etherscan({ chainid: '1', module: 'contract', action: 'getabi', address: at.tokenA! });
      assert.match(badChain.body.result, /chainid/);
      const ourChain = await etherscan({ chainid: '9000', module: 'contract', action: 'getabi', address: at.tokenA! });
      assert.equal(ourChain.body.status, '1');
      const notJson = await api('/api', { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: '{' });
      assert.equal(notJson.status, 200);
      assert.equal(notJson.body.status, '0');
    });
  });

  describe('GET /contracts: verified contracts, newest first', () => {
    it('lists every verified contract by verification time, newest first', async () => {
      const { status, body } = await api('/api/v1/contracts?limit=100');
      assert.equal(status, 200);
      const addresses = body.data.items.map((i: { address: string }) => i.address);
      assert.deepEqual(new Set(addresses), new Set([at.tokenA, at.reverterA, at.tokenB, at.reverterB, at.reverterC].map((a) => a!.toLowerCase())));
      const times = body.data.items.map((i: { verifiedAt: number }) => i.verifiedAt);
      assert.deepEqual(times, [...times].sort((a, b) => b - a));
      assert.equal(body.data.items.at(-1).address, at.tokenA!.toLowerCase(), 'the first verified is last');
      assert.deepEqual(body.data.items.at(-1), {
        address: at.tokenA!.toLowerCase(),
        contractName: 'TestToken',
        compilerVersion: SOLC_VERSION,
        optimizer: { enabled: true, runs: 200 },
        match: 'full',
        verifiedAt: body.data.items.at(-1).verifiedAt,
      });
      assert.equal(body.data.next, null);
      assert.equal(body.data.prev, null);
    });

    it('pages with next and prev', async () => {
      const all = (await api('/api/v1/contracts?limit=100')).body.data.items;
      const pages = [];
      let page = (await api('/api/v1/contracts?limit=2')).body.data;
      assert.equal(page.prev, null);
      pages.push(page);
      while (page.next) {
        page = (await api(`/api/v1/contracts?limit=2&cursor=${page.next}`)).body.data;
        pages.push(page);
      }
      assert.deepEqual(pages.flatMap((p) => p.items), all);
      const back = (await api(`/api/v1/contracts?limit=2&cursor=${pages[1]!.prev}`)).body.data;
      assert.deepEqual(back.items, pages[0]!.items);
      assert.equal(back.prev, null);
    });

    it('answers 400 for a bad cursor or limit', async () => {
      assert.equal((await api('/api/v1/contracts?cursor=garbage')).status, 400);
      assert.equal((await api('/api/v1/contracts?limit=0')).status, 400);
      assert.equal((await api('/api/v1/contracts?limit=101')).status, 400);
    });
  });

  describe("Hardhat's verifier (hardhat-verify) against /api", () => {
    let project: string;
    let apiKey: string;
    const hardhat = (args: string[]): Promise<{ code: number; out: string }> => {
      const env: NodeJS.ProcessEnv = {
        ...process.env,
        HARDHAT_DISABLE_TELEMETRY_PROMPT: 'true',
        SVC_RPC_URL: node.rpcUrl,
        SVC_EXPLORER_API_URL: `${base}/api`,
        SVC_EXPLORER_URL: base,
        SVC_EXPLORER_API_KEY: apiKey,
      };
      // hardhat-verify sends through a proxy when one is configured; ours is on loopback.
      for (const k of ['http_proxy', 'https_proxy', 'HTTP_PROXY', 'HTTPS_PROXY']) delete env[k];
      const cli = path.join(repoRoot(), 'node_modules', 'hardhat', 'internal', 'cli', 'bootstrap.js');
      return new Promise((resolve) => {
        execFile(process.execPath, [cli, ...args], { cwd: project, env, timeout: 60_000 }, (err, stdout, stderr) => {
          resolve({ code: err ? ((err as { code?: number }).code ?? 1) : 0, out: `${stdout}${stderr}` });
        });
      });
    };

    before(async () => {
      // A developer's way in: an account, then an API key for the verifier.
      const post = (route: string, body: unknown, token?: string) =>
        fetch(`${base}/api/v1${route}`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
          body: JSON.stringify(body),
        }).then(async (r) => ((await r.json()) as { data: Record<string, string> }).data);
      const account = await post('/auth/register', { email: 'verifier@example.com', password: 'correct horse battery staple' });
      apiKey = (await post('/api-keys', { name: 'hardhat-verify' }, account.accessToken)).key!;
      assert.match(apiKey, /^svc_/);
      project = mkdtempSync(path.join(tmpdir(), 'svc-hardhat-verify-'));
      cpSync(path.join(repoRoot(), 'test', 'fixtures', 'hardhat-verify'), project, { recursive: true });
      symlinkSync(path.join(repoRoot(), 'node_modules'), path.join(project, 'node_modules'), 'dir');
    });

    after(() => {
      if (project) rmSync(project, { recursive: true, force: true });
    });

    it('`hardhat verify --network svc` verifies a deployed contract, and the explorer then reports it verified', async () => {
      const compiled = await hardhat(['compile', '--quiet']);
      assert.equal(compiled.code, 0, compiled.out);
      const artifact = JSON.parse(readFileSync(path.join(project, 'artifacts', 'contracts', 'CappedToken.sol', 'CappedToken.json'), 'utf8')) as { abi: Abi; bytecode: Hex };
      const address = await deploy(artifact, ['Capped', 1_000_000n]);
      await indexer.catchUp();

      const verified = await hardhat(['verify', '--network', 'svc', address, 'Capped', '1000000']);
      assert.equal(verified.code, 0, verified.out);
      assert.match(verified.out, /Successfully verified contract CappedToken/);

      const { body } = await api(`/api/v1/contracts/${address}`);
      assert.equal(body.data.verified, true);
      assert.equal(body.data.contractName, 'CappedToken');
      // Its immutables (cap, owner) are masked; the metadata hash is Hardhat's own, so the match is full.
      assert.equal(body.data.match, 'full');
      const source = await api(`/api/v1/contracts/${address}/source`);
      assert.equal(source.body.data.sourcePath, 'contracts/CappedToken.sol');
      assert.equal(source.body.data.constructorArguments, encodeAbiParameters([{ type: 'string' }, { type: 'uint256' }], ['Capped', 1_000_000n]));

      const again = await hardhat(['verify', '--network', 'svc', address, 'Capped', '1000000']);
      assert.equal(again.code, 0, again.out);
      assert.match(again.out, /already been verified/);
    });
  });
});
