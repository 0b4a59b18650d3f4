// eth_getProof, eth_createAccessList, state and block overrides, and the raw-encoding getters,
// against a real node (RocksDB in a temp dir) on a real socket, checked with viem, ethers and an
// independent Merkle-Patricia verifier (@ethereumjs/mpt), which did not produce the proofs.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { createMPT, verifyMPTWithMerkleProof } from '@ethereumjs/mpt';
import { JsonRpcProvider } from 'ethers';
import {
  createPublicClient,
  decodeFunctionResult,
  encodeAbiParameters,
  encodeDeployData,
  encodeFunctionData,
  fromRlp,
  getContractAddress,
  hexToBytes,
  http,
  keccak256,
  pad,
  parseTransaction,
  toHex,
  type Address,
  type Hex,
} from 'viem';
import { mnemonicToAccount, privateKeyToAccount } from 'viem/accounts';
import { devnetConfig } from './support/node-config.js';
import { compileContract } from './support/solc.js';
import { svcDevnet } from './support/viem-chain.js';
import { startNode, type RunningNode } from '../src/node.js';
import { CHAIN_ID, chain as chainParams, rpc as rpcParams, rpcErrorCode, system } from '../src/params.js';

const account = mnemonicToAccount(chainParams.devMnemonic);
/** Slots long enough that every block in these tests is produced by the test itself. */
const BLOCK_TIME_MS = 3_600_000;
const EMPTY_ROOT = '0x56e81f171bcc55a6ff8345e692c0f86e5b48e01b996cadc001622fb5e363b421';
const EMPTY_CODE_HASH = '0xc5d2460186f7233c927e7db2dcc703c0e500b653ca82273b7bfad8045d85a470';
const vaultArtifact = compileContract('Vault.sol', 'Vault');
const readerArtifact = compileContract('Vault.sol', 'VaultReader');

let dataDir: string;
let node: RunningNode;
let url: string;
let vault: Address;
let reader: Address;
/** The block after which the vault holds stored = 11 and entries[7] = 70 (later changed to 71). */
let pastBlock: number;
let putHash: Hex;
let putRaw: Hex;

async function post(method: string, params: unknown[]): Promise<{ result?: any; error?: { code: number; message: string; data?: unknown } }> {
  const res = await fetch(url, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }) });
  return (await res.json()) as { result?: any; error?: { code: number; message: string } };
}

async function call(method: string, params: unknown[] = []): Promise<any> {
  const reply = await post(method, params);
  if (reply.error) throw Object.assign(new Error(`${method}: ${reply.error.message}`), reply.error);
  return reply.result;
}

async function callError(method: string, params: unknown[]): Promise<{ code: number; message: string }> {
  const reply = await post(method, params);
  assert.ok(reply.error, `${method} should fail, got ${JSON.stringify(reply)}`);
  return reply.error;
}

/** Signs an EIP-1559 transaction from dev account 0 (the next pool nonce). */
async function signTransaction(tx: { to?: Address; data?: Hex }): Promise<Hex> {
  const nonce = Number(BigInt(await call('eth_getTransactionCount', [account.address, 'pending'])));
  const baseFee = BigInt(await call('eth_gasPrice'));
  return account.signTransaction({ chainId: CHAIN_ID.devnet, type: 'eip1559', nonce, gas: 1_000_000n, maxFeePerGas: baseFee * 2n, maxPriorityFeePerGas: 1n, ...tx });
}

/** Sends, mines one block, and returns the receipt. */
async function mine(tx: { to?: Address; data?: Hex }): Promise<any> {
  const hash = await call('eth_sendRawTransaction', [await signTransaction(tx)]);
  await node.driver.produceNext();
  const receipt = await call('eth_getTransactionReceipt', [hash]);
  assert.equal(receipt.status, '0x1');
  return receipt;
}

/** The slot of `entries[key]` in the vault: keccak256(key . 1). */
function entrySlot(key: bigint): Hex {
  return keccak256(encodeAbiParameters([{ type: 'uint256' }, { type: 'uint256' }], [key, 1n]));
}

before(async () => {
  dataDir = mkdtempSync(path.join(tmpdir(), 'svc-rpc-tools-'));
  node = await startNode(devnetConfig(dataDir, { blockTimeMs: BLOCK_TIME_MS }));
  url = `http://127.0.0.1:${node.rpcPort}/`;
  await node.driver.produceNext();
  vault = (await mine({ data: encodeDeployData({ abi: vaultArtifact.abi, bytecode: vaultArtifact.bytecode, args: [11n] }) })).contractAddress;
  reader = (await mine({ data: encodeDeployData({ abi: readerArtifact.abi, bytecode: readerArtifact.bytecode, args: [vault] }) })).contractAddress;
  const put = (value: bigint) => encodeFunctionData({ abi: vaultArtifact.abi, functionName: 'put', args: [7n, value] });
  pastBlock = Number(BigInt((await mine({ to: vault, data: put(70n) })).blockNumber));
  putRaw = await signTransaction({ to: vault, data: put(71n) });
  putHash = await call('eth_sendRawTransaction', [putRaw]);
  await node.driver.produceNext();
  await node.driver.produceNext();
});

after(async () => {
  await node?.stop();
  rmSync(dataDir, { recursive: true, force: true });
});

/** Checks a proof with @ethereumjs/mpt against `root`; returns the proven value (null when absent). */
async function verified(root: Hex, key: Hex, proof: Hex[]): Promise<Uint8Array | null> {
  return verifyMPTWithMerkleProof(await createMPT(), hexToBytes(root), hexToBytes(keccak256(key)), proof.map((p) => hexToBytes(p)));
}

/** Checks a whole eth_getProof answer against the state root of `block`; returns the proven storage values. */
async function checkProof(answer: any, block: number | 'latest'): Promise<(bigint | null)[]> {
  const header = await call('eth_getBlockByNumber', [block === 'latest' ? 'latest' : toHex(block), false]);
  const account = await verified(header.stateRoot, answer.address, answer.accountProof);
  if (account === null) {
    assert.equal(answer.balance, '0x0');
    assert.equal(answer.nonce, '0x0');
    assert.equal(answer.codeHash, EMPTY_CODE_HASH);
    assert.equal(answer.storageHash, EMPTY_ROOT);
  } else {
    const [nonce, balance, storageRoot, codeHash] = fromRlp(account, 'hex') as Hex[];
    assert.equal(BigInt(nonce === '0x' ? 0 : nonce!), BigInt(answer.nonce));
    assert.equal(BigInt(balance === '0x' ? 0 : balance!), BigInt(answer.balance));
    assert.equal(storageRoot, answer.storageHash);
    assert.equal(codeHash, answer.codeHash);
  }
  const values: (bigint | null)[] = [];
  for (const s of answer.storageProof) {
    if (answer.storageHash === EMPTY_ROOT) {
      assert.deepEqual(s.proof, []);
      values.push(null);
      continue;
    }
    const slot = pad(toHex(BigInt(s.key)), { size: 32 });
    const value = await verified(answer.storageHash, slot, s.proof);
    values.push(value === null ? null : BigInt(fromRlp(value, 'hex') as Hex));
    assert.equal(BigInt(s.value), value === null ? 0n : BigInt(fromRlp(value, 'hex') as Hex));
  }
  return values;
}

describe('eth_getProof: proofs verify against the block header stateRoot with an independent verifier', () => {
  const absent = privateKeyToAccount(keccak256('0x5eed')).address;

  it('an existing contract account and its storage slots, at the head', async () => {
    const answer = await call('eth_getProof', [vault, ['0x0', entrySlot(7n)], 'latest']);
    assert.equal(answer.address, vault.toLowerCase());
    assert.notEqual(answer.codeHash, EMPTY_CODE_HASH);
    assert.deepEqual(await checkProof(answer, 'latest'), [11n, 71n]);
    // geth's key echo: a full 32-byte key as given, a shorter one as a quantity.
    assert.deepEqual(answer.storageProof.map((s: any) => s.key), ['0x0', entrySlot(7n)]);
  });

  it('an externally owned account with a balance and a nonce', async () => {
    const answer = await call('eth_getProof', [account.address, [], 'latest']);
    assert.ok(BigInt(answer.balance) > 0n);
    assert.ok(BigInt(answer.nonce) >= 4n);
    assert.equal(answer.storageHash, EMPTY_ROOT);
    await checkProof(answer, 'latest');
  });

  it('an absent slot of an existing account is an exclusion proof', async () => {
    const answer = await call('eth_getProof', [vault, [entrySlot(8n)], 'latest']);
    assert.equal(answer.storageProof[0].value, '0x0');
    assert.ok(answer.storageProof[0].proof.length > 0);
    assert.deepEqual(await checkProof(answer, 'latest'), [null]);
  });

  it('an absent account is an exclusion proof with empty fields', async () => {
    const answer = await call('eth_getProof', [absent, ['0x1'], 'latest']);
    assert.ok(answer.accountProof.length > 0);
    assert.equal(answer.storageProof[0].value, '0x0');
    assert.deepEqual(await checkProof(answer, 'latest'), [null]);
  });

  it('a past block proves the state of that block', async () => {
    const answer = await call('eth_getProof', [vault, [entrySlot(7n), entrySlot(8n)], toHex(pastBlock)]);
    assert.deepEqual(await checkProof(answer, pastBlock), [70n, null]);
    const before = await call('eth_getProof', [vault, [], toHex(pastBlock - 3)]);
    const header = await call('eth_getBlockByNumber', [toHex(pastBlock - 3), false]);
    assert.equal(await verified(header.stateRoot, vault, before.accountProof), null, 'the vault did not exist yet');
    const absentThen = await call('eth_getProof', [absent, [], { blockNumber: toHex(pastBlock) }]);
    await checkProof(absentThen, pastBlock);
  });

  it('a proof does not verify against another block state root', async () => {
    const answer = await call('eth_getProof', [vault, [], 'latest']);
    const header = await call('eth_getBlockByNumber', [toHex(pastBlock), false]);
    await assert.rejects(verified(header.stateRoot, vault, answer.accountProof));
  });

  it(`more than ${rpcParams.maxProofStorageKeys} storage keys, a key over 32 bytes or a block beyond the head are refused`, async () => {
    const keys = Array.from({ length: rpcParams.maxProofStorageKeys + 1 }, (_, i) => toHex(i));
    assert.deepEqual(await callError('eth_getProof', [vault, keys, 'latest']), {
      code: rpcErrorCode.invalidParams,
      message: `invalid argument 1: too many storage keys: ${keys.length} > ${rpcParams.maxProofStorageKeys}`,
    });
    const atLimit = await call('eth_getProof', [vault, keys.slice(1), 'latest']);
    assert.equal(atLimit.storageProof.length, rpcParams.maxProofStorageKeys);
    assert.equal((await callError('eth_getProof', [vault, [`0x${'11'.repeat(33)}`], 'latest'])).code, rpcErrorCode.invalidParams);
    assert.equal((await callError('eth_getProof', [vault, '0x0', 'latest'])).code, rpcErrorCode.invalidParams);
    assert.deepEqual(await callError('eth_getProof', [vault, [], '0xffffff']), { code: rpcErrorCode.resourceNotFound, message: 'header not found' });
  });
});

describe('eth_createAccessList: the accounts and slots a call touches, as geth lists them', () => {
  const readData = () => encodeFunctionData({ abi: readerArtifact.abi, functionName: 'read', args: [7n] });

  it('viem createAccessList lists the other contract and both slots it reads, not the sender or recipient', async () => {
    const client = createPublicClient({ chain: svcDevnet(url), transport: http(url) });
    const { accessList, gasUsed } = await client.createAccessList({ account: account.address, to: reader, data: readData() });
    assert.deepEqual(accessList, [{ address: vault.toLowerCase(), storageKeys: [pad('0x0', { size: 32 }), entrySlot(7n)].sort() }]);
    // The gas is that of the call made with the list: the same as a call given the list.
    const withList = await call('eth_estimateGas', [{ from: account.address, to: reader, data: readData(), accessList }]);
    assert.ok(gasUsed > 21_000n && gasUsed <= BigInt(withList));
  });

  it('ethers provider.send gets the same answer; an access list given is kept and the list is stable', async () => {
    const provider = new JsonRpcProvider(url, CHAIN_ID.devnet, { staticNetwork: true });
    try {
      const tx = { from: account.address, to: reader, data: readData() };
      const first = await provider.send('eth_createAccessList', [tx, 'latest']);
      const again = await provider.send('eth_createAccessList', [{ ...tx, accessList: first.accessList }, 'latest']);
      assert.deepEqual(again, first);
      assert.equal(first.error, undefined);
      // At the past block the vault held the same slots: the list is the same.
      const past = await provider.send('eth_createAccessList', [tx, toHex(pastBlock)]);
      assert.deepEqual(past.accessList, first.accessList);
    } finally {
      provider.destroy();
    }
  });

  it('a reverting call still answers its list, with the error', async () => {
    // VaultReader.read on an address without code: the call to it reverts (no return data to decode).
    const answer = await call('eth_createAccessList', [{ from: account.address, to: reader, data: readData() }, 'latest', { [vault]: { code: '0x' } }]);
    assert.equal(answer.error, 'execution reverted');
    assert.deepEqual(answer.accessList.map((e: any) => e.address), [vault.toLowerCase()]);
  });
});

describe('state and block overrides on eth_call, eth_estimateGas and eth_createAccessList', () => {
  const client = () => createPublicClient({ chain: svcDevnet(url), transport: http(url) });
  const readData = encodeFunctionData({ abi: readerArtifact.abi, functionName: 'read', args: [7n] });
  const contextData = encodeFunctionData({ abi: readerArtifact.abi, functionName: 'context' });
  const decodeRead = (data: Hex) => decodeFunctionResult({ abi: readerArtifact.abi, functionName: 'read', data }) as readonly [bigint, bigint];
  const decodeContext = (data: Hex) => decodeFunctionResult({ abi: readerArtifact.abi, functionName: 'context', data }) as readonly [bigint, bigint, bigint, Address, bigint, bigint];

  it('viem call with stateOverride: stateDiff changes one slot, state replaces the storage, and nothing is written', async () => {
    const c = client();
    assert.deepEqual(decodeRead((await c.call({ to: reader, data: readData })).data!), [11n, 71n]);
    const diff = await c.call({ to: reader, data: readData, stateOverride: [{ address: vault, stateDiff: [{ slot: pad('0x0', { size: 32 }), value: pad('0x5', { size: 32 }) }] }] });
    assert.deepEqual(decodeRead(diff.data!), [5n, 71n]);
    const replaced = await c.call({ to: reader, data: readData, stateOverride: [{ address: vault, state: [{ slot: pad('0x0', { size: 32 }), value: pad('0x6', { size: 32 }) }] }] });
    assert.deepEqual(decodeRead(replaced.data!), [6n, 0n]);
    assert.deepEqual(decodeRead((await c.call({ to: reader, data: readData })).data!), [11n, 71n]);
    assert.equal(BigInt(await call('eth_getStorageAt', [vault, '0x0', 'latest'])), 11n);
  });

  it('balance, nonce and code overrides', async () => {
    const c = client();
    const stranger = privateKeyToAccount(keccak256('0xbeef')).address;
    const ctx = await c.call({ account: stranger, to: reader, data: contextData, stateOverride: [{ address: stranger, balance: 123n }] });
    assert.equal(decodeContext(ctx.data!)[5], 123n);
    // The vault's code swapped for the reader's (which has no `stored()`): the read reverts.
    await assert.rejects(c.call({ to: reader, data: readData, stateOverride: [{ address: vault, code: readerArtifact.deployedBytecode }] }));
    // A nonce override moves the address a creation gets: init code that returns ADDRESS.
    const created = await c.call({ account: stranger, data: '0x3060005260206000f3', stateOverride: [{ address: stranger, nonce: 5 }] });
    assert.equal(BigInt(created.data!), BigInt(getContractAddress({ from: stranger, nonce: 5n })));
    const list = await call('eth_createAccessList', [{ from: stranger, data: '0x3060005260206000f3' }, 'latest', { [stranger]: { nonce: '0x5' } }]);
    assert.deepEqual(list.accessList, []);
    // A priced estimate from an account without funds fails; with a balance override it succeeds.
    const head = await call('eth_getBlockByNumber', ['latest', false]);
    const priced = { from: stranger, to: reader, data: contextData, gasPrice: toHex(BigInt(head.baseFeePerGas) * 2n) };
    assert.deepEqual(await callError('eth_estimateGas', [priced, 'latest']), { code: rpcErrorCode.serverError, message: 'insufficient funds for transfer' });
    const gas = await call('eth_estimateGas', [priced, 'latest', { [stranger]: { balance: toHex(10n ** 20n) } }]);
    assert.ok(BigInt(gas) > 21_000n);
  });

  it('viem call with blockOverrides sets number, time, gas limit, coinbase and base fee', async () => {
    const coinbase = privateKeyToAccount(keccak256('0xc0ffee')).address;
    const res = await client().call({
      account: account.address,
      to: reader,
      data: contextData,
      gasPrice: 100n,
      blockOverrides: { number: 12_345n, time: 1_900_000_000n, gasLimit: 40_000_000n, feeRecipient: coinbase, baseFeePerGas: 7n },
    });
    const [number, time, gasLimit, cb, baseFee] = decodeContext(res.data!);
    assert.deepEqual([number, time, gasLimit, cb.toLowerCase(), baseFee], [12_345n, 1_900_000_000n, 40_000_000n, coinbase.toLowerCase(), 7n]);
  });

  it('a call to a system module takes no overrides; empty ones are no overrides', async () => {
    const plain = await post('eth_call', [{ to: system.stakingAddress, data: '0x' }, 'latest']);
    assert.deepEqual(await post('eth_call', [{ to: system.stakingAddress, data: '0x' }, 'latest', {}, {}]), plain);
    assert.deepEqual(await post('eth_call', [{ to: system.stakingAddress, data: '0x' }, 'latest', null, { number: null }]), plain);
    assert.deepEqual(await callError('eth_call', [{ to: system.stakingAddress, data: '0x' }, 'latest', { [vault]: { balance: '0x1' } }]), {
      code: rpcErrorCode.invalidParams,
      message: 'invalid argument 2: state and block overrides do not apply to a call to a system module',
    });
    assert.equal((await callError('eth_createAccessList', [{ to: system.stakingAddress, data: '0x' }, 'latest'])).code, rpcErrorCode.invalidParams);
  });

  it('malformed overrides are -32602 with a clear text and change nothing', async () => {
    const base = [{ to: reader, data: readData }, 'latest'];
    const cases: [unknown[], string][] = [
      [[...base, { [vault]: { state: {}, stateDiff: {} } }], `invalid argument 2: ${vault}: account ${vault} has both 'state' and 'stateDiff'`],
      [[...base, { '0x1234': { balance: '0x1' } }], 'invalid argument 2: 0x1234: hex string has length 4, want 40 for address'],
      [[...base, { [vault]: { balance: 'ten' } }], `invalid argument 2: ${vault}: balance: hex string without 0x prefix`],
      [[...base, { [vault]: { stateDiff: { '0x0': pad('0x1', { size: 32 }) } } }], `invalid argument 2: ${vault}: stateDiff: key 0x0: hex string has length 1, want 64 for hash`],
      [[...base, { [vault]: { movePrecompileToAddress: vault } }], `invalid argument 2: ${vault}: movePrecompileToAddress is not supported`],
      [[...base, { [vault]: { balanse: '0x1' } }], `invalid argument 2: ${vault}: unknown field "balanse": want balance, nonce, code, state or stateDiff`],
      [[...base, {}, { difficulty: '0x1' }], 'invalid argument 3: difficulty: cannot be overridden: there is no difficulty on a proof-of-stake chain'],
      [[...base, {}, { number: 5 }], 'invalid argument 3: number: expected a hex string, got number'],
      [[...base, {}, { gasLimt: '0x1' }], 'invalid argument 3: unknown field "gasLimt": want number, time, gasLimit, feeRecipient, prevRandao or baseFeePerGas'],
      [[...base, []], 'invalid argument 2: expected a state override object, got array'],
    ];
    for (const [params, message] of cases) {
      for (const method of ['eth_call', 'eth_estimateGas', 'eth_createAccessList']) {
        assert.deepEqual(await callError(method, params), { code: rpcErrorCode.invalidParams, message }, `${method} ${JSON.stringify(params)}`);
      }
    }
    assert.equal(BigInt(await call('eth_getStorageAt', [vault, '0x0', 'latest'])), 11n);
  });
});

describe('raw transactions, headers and receipts', () => {
  it('eth_getRawTransaction* answer the EIP-2718 bytes of a mined transaction, null when unknown', async () => {
    assert.equal(await call('eth_getRawTransactionByHash', [putHash]), putRaw);
    const tx = await call('eth_getTransactionByHash', [putHash]);
    assert.equal(await call('eth_getRawTransactionByBlockHashAndIndex', [tx.blockHash, tx.transactionIndex]), putRaw);
    assert.equal(await call('eth_getRawTransactionByBlockNumberAndIndex', [tx.blockNumber, tx.transactionIndex]), putRaw);
    assert.equal(await call('debug_getRawTransaction', [putHash]), putRaw);
    assert.equal(parseTransaction(putRaw).to?.toLowerCase(), vault.toLowerCase());
    assert.equal(await call('eth_getRawTransactionByHash', [keccak256('0x01')]), null);
    assert.equal(await call('eth_getRawTransactionByBlockNumberAndIndex', [tx.blockNumber, '0x63']), null);
    assert.equal(await call('eth_getRawTransactionByBlockNumberAndIndex', ['0xffffff', '0x0']), null);
    assert.equal(await call('eth_getRawTransactionByBlockHashAndIndex', [keccak256('0x02'), '0x0']), null);
    assert.equal((await callError('eth_getRawTransactionByHash', ['0x12'])).code, rpcErrorCode.invalidParams);
  });

  it('a transaction waiting in the pool is served by hash, as geth does', async () => {
    const raw = await signTransaction({ to: vault, data: encodeFunctionData({ abi: vaultArtifact.abi, functionName: 'put', args: [9n, 1n] }) });
    const hash = await call('eth_sendRawTransaction', [raw]);
    assert.equal(await call('eth_getRawTransactionByHash', [hash]), raw);
    assert.equal(await call('debug_getRawTransaction', [hash]), raw);
    await node.driver.produceNext();
    assert.equal(await call('eth_getRawTransactionByHash', [hash]), raw);
  });

  it('debug_getRawHeader hashes to the block hash; debug_getRawReceipts are the receipts encoded', async () => {
    const tx = await call('eth_getTransactionByHash', [putHash]);
    const header = await call('debug_getRawHeader', [tx.blockNumber]);
    assert.equal(keccak256(header), tx.blockHash);
    assert.equal(await call('debug_getRawHeader', [tx.blockHash]), header);
    const receipts = await call('debug_getRawReceipts', [{ blockHash: tx.blockHash }]);
    const block = await call('eth_getBlockByHash', [tx.blockHash, false]);
    assert.equal(receipts.length, block.transactions.length);
    // A typed (EIP-1559) receipt: the type byte, then rlp([status, cumulativeGas, bloom, logs]).
    const index = Number(BigInt(tx.transactionIndex));
    assert.ok(receipts[index].startsWith('0x02'));
    const [status] = fromRlp(`0x${receipts[index].slice(4)}`, 'hex') as Hex[];
    assert.equal(status, '0x01');
    assert.deepEqual(await callError('debug_getRawHeader', ['0xffffff']), { code: rpcErrorCode.resourceNotFound, message: 'header not found' });
    assert.equal((await callError('debug_getRawReceipts', [keccak256('0x03')])).code, rpcErrorCode.resourceNotFound);
  });

  it('rpc_modules lists debug beside eth; eth_getProof and eth_createAccessList are no longer -32004', async () => {
    const modules = await call('rpc_modules');
    assert.equal(modules.debug, '1.0');
    assert.equal(modules.eth, '1.0');
    const refused = await callError('debug_getRawBlock', ['latest']);
    assert.equal(refused.code, rpcErrorCode.methodNotSupported);
    assert.match(refused.message, /^method not supported: debug_getRawBlock \(a block also carries system-module messages/);
    assert.equal((await callError('debug_getRawBlok', ['latest'])).code, rpcErrorCode.methodNotFound);
  });
});
