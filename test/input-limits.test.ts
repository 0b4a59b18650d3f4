// Input limits before work (docs/rpc.md, "Input limits"): a quantity longer than its type allows
// (64 bits for block numbers, counts, indexes, ids and nonces; 256 bits for values and fees; in hex
// or decimal) is refused when it is decoded, before it is converted, with a short message that does
// not repeat it. Every method of the JSON-RPC table gets an oversized value in each of its parameter
// positions; the explorer's numeric path and query parameters get the same.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { after, before, describe, it } from 'node:test';
import { ENTRY_POINT_V06, ENTRY_POINT_V07 } from '../src/chain/account-abstraction.js';
import { PUBLIC_ROUTES } from '../src/explorer/index.js';
import type { ParamDef } from '../src/explorer/definition.js';
import { startNode, type RunningNode } from '../src/node.js';
import { rpcErrorCode } from '../src/params.js';
import { rpcMethods } from '../src/rpc/methods.js';
import { svcMethods } from '../src/rpc/svc/index.js';
import { devnetConfig } from './support/node-config.js';

/** A 2.4 MB hex quantity, as the hostile client sent. */
const HUGE_2_4MB = `0x${'f'.repeat(2_400_000)}`;
/** The oversized values of the walk: 200,000 hex digits, 200,000 decimal digits. */
const HUGE_HEX = `0x${'f'.repeat(200_000)}`;
const HUGE_DECIMAL = '9'.repeat(200_000);
/** A JSON number of 200,000 digits, written into the request text as it is. */
const HUGE_NUMBER_LITERAL = '9'.repeat(200_000);
/** Any long run of one of the oversized values' characters in a message is an echo of the input. */
const ECHO = /f{100}|9{100}|0{100}/i;

const ADDRESS = '0x00000000000000000000000000000000000000aa';
const HASH = `0x${'ab'.repeat(32)}`;

let dataDir: string;
let node: RunningNode;
let url: string;

interface Answer {
  status: number;
  ms: number;
  error?: { code: number; message: string };
  result?: unknown;
}

/** Posts `{"jsonrpc":"2.0","id":1,"method":…,"params":<paramsText>}` and times the answer. */
async function sendText(method: string, paramsText: string): Promise<Answer> {
  const body = `{"jsonrpc":"2.0","id":1,"method":${JSON.stringify(method)},"params":${paramsText}}`;
  const t0 = performance.now();
  const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
  const text = await res.text();
  const ms = performance.now() - t0;
  const json = JSON.parse(text) as { error?: { code: number; message: string }; result?: unknown };
  return { status: res.status, ms, ...json };
}

const send = (method: string, params: unknown[]) => sendText(method, JSON.stringify(params));

/**
 * The answer is a refusal other than -32603, its message short and free of the input. A refusal of
 * the oversized value itself is under 200 characters; `maxLength` lets the walk through the whole
 * table take the fixed reasons of the methods that are not served (debug_getRawBlock's is 230).
 */
function assertRefused(what: string, answer: Answer, code?: number, maxLength = 200): string {
  assert.ok(answer.error, `${what}: expected an error, got ${JSON.stringify(answer.result)?.slice(0, 200)}`);
  const { message } = answer.error;
  assert.notEqual(answer.error.code, rpcErrorCode.internalError, `${what}: -32603 ${message.slice(0, 200)}`);
  if (code !== undefined) assert.equal(answer.error.code, code, `${what}: ${answer.error.code} ${message.slice(0, 200)}`);
  assert.ok(message.length < maxLength, `${what}: a ${message.length}-character message: ${message.slice(0, 200)}`);
  assert.doesNotMatch(message, ECHO, `${what}: the message repeats the input`);
  return message;
}

before(async () => {
  dataDir = mkdtempSync(path.join(tmpdir(), 'svc-input-limits-'));
  node = await startNode(devnetConfig(dataDir, { blockTimeMs: 3_600_000 }));
  url = `http://127.0.0.1:${node.rpcPort}/`;
  await node.driver.produceNext();
});

after(async () => {
  await node?.stop();
  rmSync(dataDir, { recursive: true, force: true });
});

describe('the oversized quantities of the hostile client', () => {
  const userOperationV06 = {
    sender: ADDRESS,
    nonce: '0x0',
    initCode: '0x',
    callData: '0x',
    callGasLimit: '0x10000',
    verificationGasLimit: '0x10000',
    preVerificationGas: '0x10000',
    maxFeePerGas: '0x3b9aca00',
    maxPriorityFeePerGas: '0x3b9aca00',
    paymasterAndData: '0x',
    signature: '0x',
  };

  it('eth_sendUserOperation with a 2.4 MB quantity in a user-operation field: -32602 at once, a short message', async () => {
    for (const field of ['nonce', 'callGasLimit', 'maxFeePerGas']) {
      const answer = await send('eth_sendUserOperation', [{ ...userOperationV06, [field]: HUGE_2_4MB }, ENTRY_POINT_V06]);
      const message = assertRefused(`eth_sendUserOperation ${field}`, answer, rpcErrorCode.invalidParams);
      assert.match(message, new RegExp(`${field}: hex number > (120|256) bits`));
      assert.ok(answer.ms < 1_000, `eth_sendUserOperation ${field} answered in ${answer.ms.toFixed(0)} ms`);
    }
  });

  it('svc_getBridgeDeposit and svc_getBridgeWithdrawal with a 2.4 MB id: -32602 at once, a short message', async () => {
    for (const method of ['svc_getBridgeDeposit', 'svc_getBridgeWithdrawal']) {
      const answer = await send(method, [HUGE_2_4MB]);
      assert.equal(assertRefused(method, answer, rpcErrorCode.invalidParams), 'invalid argument 0: hex number > 64 bits');
      assert.ok(answer.ms < 1_000, `${method} answered in ${answer.ms.toFixed(0)} ms`);
    }
  });

  it('eth_feeHistory with a 5,000,000-digit decimal count is refused the same way; 20 digits are read', async () => {
    const answer = await send('eth_feeHistory', ['9'.repeat(5_000_000), 'latest', []]);
    assert.equal(assertRefused('eth_feeHistory', answer, rpcErrorCode.invalidParams), 'invalid argument 0: decimal number > 64 bits');
    assert.ok(answer.ms < 1_000, `eth_feeHistory answered in ${answer.ms.toFixed(0)} ms`);
    // 2^64 has 20 digits: refused by its value. 2^64 - 1 is a count (capped by the node's own limit).
    assertRefused('eth_feeHistory 2^64', await send('eth_feeHistory', ['18446744073709551616', 'latest', []]), rpcErrorCode.invalidParams);
    const ok = await send('eth_feeHistory', ['18446744073709551615', 'latest', []]);
    assert.equal(ok.error, undefined, JSON.stringify(ok.error));
    const hex = await send('eth_feeHistory', [`0x${'f'.repeat(5_000_000)}`, 'latest', []]);
    assert.equal(assertRefused('eth_feeHistory hex', hex, rpcErrorCode.invalidParams), 'invalid argument 0: hex number > 64 bits');
  });

  it('a quantity is refused by its significant digits, whatever they are; leading zeros are still read', async () => {
    assert.equal(assertRefused('17 digits', await send('eth_getBlockByNumber', ['0x10000000000000000', false])), 'invalid argument 0: hex number > 64 bits');
    assert.equal(assertRefused('17 non-digits', await send('eth_getBlockByNumber', [`0x${'z'.repeat(17)}`, false])), 'invalid argument 0: hex number > 64 bits');
    assert.equal(assertRefused('bad digit', await send('eth_getBlockByNumber', ['0x1z', false])), 'invalid argument 0: invalid hex string');
    // Zeros in front do not make a number larger (anvil and reth read them; so does the native fast path).
    for (const zeros of [63, 65, 2_400_000]) {
      const padded = await send('eth_getBlockByNumber', [`0x${'0'.repeat(zeros)}1`, false]);
      assert.equal((padded.result as { number: string } | undefined)?.number, '0x1', JSON.stringify(padded.error));
      assert.ok(padded.ms < 1_000, `${zeros} leading zeros answered in ${padded.ms.toFixed(0)} ms`);
    }
    const value = await send('eth_call', [{ value: `0x1${'0'.repeat(64)}` }, 'latest']);
    assert.equal(assertRefused('value over 256 bits', value), 'invalid argument 0: value: hex number > 256 bits');
  });
});

describe('every method of the JSON-RPC table, an oversized value in each parameter position', () => {
  /** Values tried, in order, for the positions before the one under test, until the method's parser takes one. */
  const CANDIDATES: unknown[] = ['latest', ADDRESS, HASH, '0x1', {}, true, [], { blockStateCalls: [{}] }, 1, { [ADDRESS]: ['0x0'] }];

  it('answers each with a short error (not -32603) that does not repeat the input, and the walk stays fast', async (t) => {
    const table = rpcMethods(svcMethods);
    const walkStarted = performance.now();
    let requests = 0;
    let slowest = { ms: 0, what: '' };
    const tried: string[] = [];
    for (const [name, m] of Object.entries(table).sort(([a], [b]) => a.localeCompare(b))) {
      const positions = m.args === null ? 1 : Math.max(m.args.length, 1);
      for (let i = 0; i < positions; i++) {
        const prefix: unknown[] = [];
        for (let j = 0; j < i; j++) {
          const arg = m.args![j]!;
          const good = CANDIDATES.find((c) => {
            try {
              arg.parse(c);
              return true;
            } catch {
              return false;
            }
          });
          assert.notEqual(good, undefined, `${name}: no candidate value parses as argument ${j}`);
          prefix.push(good);
        }
        const before = prefix.map((v) => JSON.stringify(v)).join(',');
        const lead = before === '' ? '' : `${before},`;
        const variants: [string, string][] = [
          ['hex', `[${lead}${JSON.stringify(HUGE_HEX)}]`],
          ['decimal', `[${lead}${JSON.stringify(HUGE_DECIMAL)}]`],
          ['number', `[${lead}${HUGE_NUMBER_LITERAL}]`],
          ['array', `[${lead}[${JSON.stringify(HUGE_HEX)}]]`],
          ['key', `[${lead}{${JSON.stringify(HUGE_HEX)}:1}]`],
        ];
        for (const [kind, paramsText] of variants) {
          const what = `${name} argument ${i} (${kind})`;
          const answer = await sendText(name, paramsText);
          requests += 1;
          if (answer.ms > slowest.ms) slowest = { ms: answer.ms, what };
          // web3_sha3 hashes data of any length: 100 kB of 0xff is data, and its hash the answer.
          if (name === 'web3_sha3' && kind === 'hex') {
            assert.match(String(answer.result), /^0x[0-9a-f]{64}$/);
            continue;
          }
          // The devnet's setCode puts code of up to 128 KiB (docs/rpc.md): 100 kB of 0xff is code, and it is set.
          if (/^(hardhat|anvil)_setCode$/.test(name) && i === 1 && kind === 'hex') {
            assert.equal(answer.error, undefined, `${what}: ${JSON.stringify(answer.error)}`);
            continue;
          }
          // Call objects, filters and tracing options ignore members they do not know, as geth's do:
          // an object with one unknown (oversized) member name may be answered.
          if (kind === 'key' && answer.error === undefined) continue;
          assertRefused(what, answer, undefined, answer.error?.code === rpcErrorCode.methodNotSupported ? 300 : 200);
        }
        tried.push(`${name}#${i}`);
      }
    }
    const seconds = (performance.now() - walkStarted) / 1000;
    t.diagnostic(`${Object.keys(table).length} methods, ${tried.length} positions, ${requests} requests in ${seconds.toFixed(1)} s; slowest ${slowest.what} ${slowest.ms.toFixed(0)} ms`);
    assert.ok(tried.length >= Object.keys(table).length, `${tried.length} positions walked`);
    assert.ok(slowest.ms < 1_000, `the slowest answer, ${slowest.what}, took ${slowest.ms.toFixed(0)} ms`);
    assert.ok(seconds < 60, `${requests} requests took ${seconds.toFixed(1)} s`);
    // The node still serves.
    assert.equal((await send('eth_chainId', [])).error, undefined);
  });

  it('refuses oversized quantities inside objects: calls, overrides, filters, block ids, user operations, simulate', async () => {
    const callFields = ['gas', 'gasPrice', 'maxFeePerGas', 'maxPriorityFeePerGas', 'value', 'nonce', 'type', 'chainId'];
    const v06 = {
      sender: ADDRESS, nonce: '0x0', initCode: '0x', callData: '0x', callGasLimit: '0x1', verificationGasLimit: '0x1',
      preVerificationGas: '0x1', maxFeePerGas: '0x1', maxPriorityFeePerGas: '0x1', paymasterAndData: '0x', signature: '0x',
    };
    const v07 = {
      sender: ADDRESS, nonce: '0x0', callData: '0x', callGasLimit: '0x1', verificationGasLimit: '0x1', preVerificationGas: '0x1',
      maxFeePerGas: '0x1', maxPriorityFeePerGas: '0x1', signature: '0x', paymaster: ADDRESS, paymasterVerificationGasLimit: '0x1',
      paymasterPostOpGasLimit: '0x1', paymasterData: '0x',
    };
    const authorization = { chainId: '0x1', address: ADDRESS, nonce: '0x0', yParity: '0x0', r: '0x1', s: '0x1' };
    const cases: [string, string, unknown[]][] = [];
    for (const method of ['eth_call', 'eth_estimateGas', 'eth_createAccessList', 'debug_traceCall']) {
      for (const f of callFields) cases.push([`${method} ${f}`, method, [{ [f]: HUGE_HEX }, 'latest']]);
      for (const f of Object.keys(authorization)) {
        cases.push([`${method} authorizationList ${f}`, method, [{ authorizationList: [{ ...authorization, [f]: HUGE_HEX }] }, 'latest']]);
      }
      cases.push([`${method} block number`, method, [{}, HUGE_HEX]]);
      cases.push([`${method} EIP-1898 blockNumber`, method, [{}, { blockNumber: HUGE_HEX }]]);
    }
    for (const f of ['balance', 'nonce']) cases.push([`eth_call state override ${f}`, 'eth_call', [{}, 'latest', { [ADDRESS]: { [f]: HUGE_HEX } }]]);
    cases.push(['eth_call state override key', 'eth_call', [{}, 'latest', { [HUGE_HEX]: {} }]]);
    cases.push(['eth_call state override slot key', 'eth_call', [{}, 'latest', { [ADDRESS]: { stateDiff: { [HUGE_HEX]: HASH } } }]]);
    cases.push(['eth_call state override field name', 'eth_call', [{}, 'latest', { [ADDRESS]: { [HUGE_HEX]: 1 } }]]);
    for (const f of ['number', 'time', 'gasLimit', 'baseFeePerGas', HUGE_HEX]) {
      cases.push([`eth_call block override ${f.slice(0, 20)}`, 'eth_call', [{}, 'latest', {}, { [f]: HUGE_HEX }]]);
    }
    for (const f of ['fromBlock', 'toBlock']) {
      cases.push([`eth_getLogs ${f}`, 'eth_getLogs', [{ [f]: HUGE_HEX }]]);
      cases.push([`eth_newFilter ${f}`, 'eth_newFilter', [{ [f]: HUGE_HEX }]]);
    }
    cases.push(['eth_getBalance EIP-1898 blockNumber', 'eth_getBalance', [ADDRESS, { blockNumber: HUGE_HEX }]]);
    cases.push(['eth_getStorageAt slot', 'eth_getStorageAt', [ADDRESS, HUGE_HEX, 'latest']]);
    cases.push(['eth_getProof key', 'eth_getProof', [ADDRESS, [HUGE_HEX], 'latest']]);
    cases.push(['eth_getTransactionByBlockNumberAndIndex index', 'eth_getTransactionByBlockNumberAndIndex', ['latest', HUGE_HEX]]);
    cases.push(['eth_feeHistory percentile', 'eth_feeHistory', ['0x1', 'latest', [HUGE_DECIMAL]]]);
    cases.push(['eth_feeHistory newest block', 'eth_feeHistory', ['0x1', HUGE_HEX, []]]);
    cases.push(['eth_getBlockByNumber tag', 'eth_getBlockByNumber', [`x${HUGE_DECIMAL}`, false]]);
    cases.push(['eth_getFilterChanges id', 'eth_getFilterChanges', [HUGE_HEX]]);
    cases.push(['eth_simulateV1 call gas', 'eth_simulateV1', [{ blockStateCalls: [{ calls: [{ gas: HUGE_HEX }] }] }, 'latest']]);
    cases.push(['eth_simulateV1 block override', 'eth_simulateV1', [{ blockStateCalls: [{ blockOverrides: { number: HUGE_HEX } }] }, 'latest']]);
    cases.push(['eth_simulateV1 member', 'eth_simulateV1', [{ blockStateCalls: [{ [HUGE_HEX]: 1 }] }, 'latest']]);
    cases.push(['eth_simulateV1 option', 'eth_simulateV1', [{ [HUGE_HEX]: 1 }, 'latest']]);
    for (const f of ['nonce', 'callGasLimit', 'verificationGasLimit', 'preVerificationGas', 'maxFeePerGas', 'maxPriorityFeePerGas']) {
      cases.push([`eth_sendUserOperation v0.6 ${f}`, 'eth_sendUserOperation', [{ ...v06, [f]: HUGE_HEX }, ENTRY_POINT_V06]]);
      cases.push([`eth_estimateUserOperationGas v0.6 ${f}`, 'eth_estimateUserOperationGas', [{ ...v06, [f]: HUGE_HEX }, ENTRY_POINT_V06]]);
      cases.push([`svc_sendUserOperation ${f}`, 'svc_sendUserOperation', [{ ...v06, [f]: HUGE_HEX }]]);
    }
    for (const f of ['nonce', 'callGasLimit', 'verificationGasLimit', 'preVerificationGas', 'maxFeePerGas', 'maxPriorityFeePerGas', 'paymasterVerificationGasLimit', 'paymasterPostOpGasLimit']) {
      cases.push([`eth_sendUserOperation v0.7 ${f}`, 'eth_sendUserOperation', [{ ...v07, [f]: HUGE_HEX }, ENTRY_POINT_V07]]);
    }
    cases.push(['eth_sendUserOperation entryPoint', 'eth_sendUserOperation', [v06, HUGE_HEX]]);
    cases.push(['svc_getProposal', 'svc_getProposal', [HUGE_HEX]]);
    cases.push(['svc_getParameterProposals member', 'svc_getParameterProposals', [{ [HUGE_HEX]: 1 }]]);
    cases.push(['svc_getValidatorSet', 'svc_getValidatorSet', [HUGE_HEX]]);
    cases.push(['svc_getInferenceTasks miner', 'svc_getInferenceTasks', [{ miner: HUGE_HEX }]]);
    cases.push(['svc_submitInferenceProof model id', 'svc_submitInferenceProof', [{ model_id: `m${'9'.repeat(200_000)}` }]]);
    cases.push(['unknown method', HUGE_HEX, []]);

    const started = performance.now();
    for (const [what, method, params] of cases) {
      const answer = await send(method, params);
      assertRefused(what, answer);
      assert.ok(answer.ms < 1_000, `${what} answered in ${answer.ms.toFixed(0)} ms`);
    }
    assert.ok(performance.now() - started < 30_000, `${cases.length} requests took ${((performance.now() - started) / 1000).toFixed(1)} s`);
  });
});

describe("the explorer's numeric parameters", () => {
  /** A value for a path parameter that is not under test: one that its schema takes. */
  function filler(p: ParamDef): string {
    const pattern = typeof p.schema.pattern === 'string' ? p.schema.pattern : '';
    if (p.schema.type === 'integer' || p.schema.type === 'number') return '1';
    if (pattern.includes('{40}')) return ADDRESS;
    if (pattern.includes('{64}')) return HASH;
    if (pattern.includes('latest')) return 'latest';
    if (pattern.includes('{32}')) return '0'.repeat(32);
    return '1';
  }

  it('answers 400 with a short message, naming the parameter, for a huge number in any path or query parameter', async () => {
    // 8,000 characters: within the 16 kB an HTTP request line may have; "1.000…" is the number 1 when read.
    const huge = ['9'.repeat(8_000), `1.${'0'.repeat(8_000)}`];
    let checked = 0;
    for (const module of PUBLIC_ROUTES) {
      for (const def of module.definitions) {
        if (def.method !== 'GET') continue;
        for (const p of def.params ?? []) {
          if (p.schema.type !== 'integer' && p.schema.type !== 'number') continue;
          for (const value of huge) {
            let target = def.path.replace(/\{(\w+)\}/g, (_m, name: string) => {
              if (name === p.name && p.in === 'path') return value;
              return filler(def.params!.find((q) => q.name === name)!);
            });
            if (p.in === 'query') target += `?${p.name}=${value}`;
            const t0 = performance.now();
            const res = await fetch(`${node.explorerUrl}/api/v1${target}`);
            const ms = performance.now() - t0;
            const body = (await res.json()) as { error?: string };
            const what = `GET ${def.path} ${p.in} ${p.name} (${value.slice(0, 3)}…)`;
            assert.equal(res.status, 400, `${what}: ${res.status} ${JSON.stringify(body).slice(0, 200)}`);
            assert.ok(body.error && body.error.length < 200, `${what}: ${body.error?.slice(0, 200)}`);
            assert.match(body.error, new RegExp(`"${p.name}"`));
            assert.doesNotMatch(body.error, ECHO);
            assert.ok(ms < 1_000, `${what} answered in ${ms.toFixed(0)} ms`);
            checked += 1;
          }
        }
      }
    }
    assert.ok(checked >= 10, `${checked} parameters checked`);
  });
});
