// Account rent through a running node (docs/rent.md): deposits and rent exact to the wei in a
// hand-computed example, a contract with 100 slots that goes dormant (its calls refused at
// admission, by eth_call and inside other contracts; its storage and balance kept), reactivation
// by another account that brings it back exactly as it was, exempt contracts, svc_getAccountRentInfo,
// and the chain replayed from block data to the same roots.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { pino } from 'pino';
import {
  createPublicClient,
  createWalletClient,
  decodeEventLog,
  encodeFunctionData,
  getAddress,
  http,
  parseAbi,
  type Address,
  type Chain as ViemChain,
  type Hex,
  type PrivateKeyAccount,
  type PublicClient,
  type Transport,
  type WalletClient,
} from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import WebSocket from 'ws';
import { devGenesis, devGenesisValidators } from '../src/chain/genesis.js';
import { replayChain } from '../src/chain/replay.js';
import { epochOfHeight } from '../src/modules/staking/epoch.js';
import type { AccountRentInfo } from '../src/modules/rent/types.js';
import { startNode, type RunningNode } from '../src/node.js';
import { rent as defaultRent, staking as defaultStaking, system, type RentParams, type StakingParams } from '../src/params.js';
import { DEV_CHAIN_ID, devPrivateKeys, MULTICALL3_ADDRESS } from './support/dev-accounts.js';
import { JsonRpcError, rpc, waitFor } from './support/json-rpc.js';
import { devnetConfig } from './support/node-config.js';
import { compileContracts } from './support/solc.js';
import { svcDevnet } from './support/viem-chain.js';

const STAKING: StakingParams = { ...defaultStaking, epochLengthBlocks: 4 };
const RENT: RentParams = {
  ...defaultRent,
  depositPerSlot: 1_000_000_000_000n,
  rentPerSlotPerEpoch: 1_000_000n,
  dormancyOwedLimit: 50_000_000n,
  dormancyEpochs: 3,
  reactivationFee: 1_000_000_000_000_000n,
};
const RENT_ABI = parseAbi([
  'function reactivate(address account) payable',
  'function payRent(address account) payable returns (uint256)',
  'function coverSlots(address account) payable returns (uint256)',
  'function rentInfo(address account) view returns (uint256, uint256, uint256, uint256, bool, uint256, uint256)',
  'event AccountReactivated(address indexed account, address indexed payer, uint256 rentPaid, uint256 fee)',
  'event RentPaid(address indexed account, address indexed payer, uint256 amount, uint256 rentOwed)',
]);
const epochOf = (height: bigint | number) => epochOfHeight(Number(height), STAKING);

type RentInfo = AccountRentInfo;

describe('account rent', { timeout: 240_000 }, () => {
  let node: RunningNode;
  let dataDir: string;
  let client: PublicClient<Transport, ViemChain>;
  let owner: WalletClient<Transport, ViemChain, PrivateKeyAccount>;
  let payer: WalletClient<Transport, ViemChain, PrivateKeyAccount>;
  const contracts = compileContracts('RentTarget.sol');
  const target = contracts.RentTarget!;
  const caller = contracts.RentCaller!;
  const dirs: string[] = [];
  const rentInfo = (a: Address) => rpc<RentInfo>(node.rpcUrl, 'svc_getAccountRentInfo', [a]);
  /** What the treasury took in from the rent module (svc_getTreasuryInfo's inflows by source). */
  const rentInflows = async () => BigInt((await rpc<{ inflows: Record<string, Hex> }>(node.rpcUrl, 'svc_getTreasuryInfo', [])).inflows.rent ?? '0x0');

  const send = async (w: WalletClient<Transport, ViemChain, PrivateKeyAccount>, to: Address, data: Hex, value = 0n) => {
    const hash = await w.sendTransaction({ to, data, value, gas: 6_000_000n });
    const receipt = await client.waitForTransactionReceipt({ hash });
    assert.equal(receipt.status, 'success', `transaction to ${to}`);
    return receipt;
  };
  const deploy = async () => {
    const hash = await owner.deployContract({ abi: target.abi, bytecode: target.bytecode });
    return (await client.waitForTransactionReceipt({ hash })).contractAddress!;
  };
  const set = (c: Address, start: bigint, n: bigint, value: bigint) => send(owner, c, encodeFunctionData({ abi: target.abi, functionName: 'set', args: [start, n, value] }));
  /** Waits until the block after `height` is committed (its beginBlock read `height`'s changes). */
  const nextBlock = (height: bigint) => waitFor('the next block', async () => ((await client.getBlockNumber()) > height ? true : undefined), 20_000, 20);
  const balance = (a: Address) => client.getBalance({ address: a });

  before(async () => {
    dataDir = mkdtempSync(path.join(tmpdir(), 'svc-rent-'));
    dirs.push(dataDir);
    node = await startNode(devnetConfig(dataDir, { blockTimeMs: 100 }), { stakingParams: STAKING, rentParams: RENT });
    client = createPublicClient({ chain: svcDevnet(node.rpcUrl), transport: http(node.rpcUrl), pollingInterval: 25 });
    const keys = devPrivateKeys(6);
    owner = createWalletClient({ account: privateKeyToAccount(keys[4]!), chain: svcDevnet(node.rpcUrl), transport: http(node.rpcUrl), pollingInterval: 25 });
    payer = createWalletClient({ account: privateKeyToAccount(keys[5]!), chain: svcDevnet(node.rpcUrl), transport: http(node.rpcUrl), pollingInterval: 25 });
  });

  after(async () => {
    await node?.stop();
    for (const d of dirs) rmSync(d, { recursive: true, force: true });
  });

  it('locks and returns deposits and charges rent exactly, by hand', async () => {
    const c = await deploy();
    // 30 slots' worth of deposit: 30 x 10^12 wei.
    await send(owner, c, '0x', 30_000_000_000_000n);
    const first = await set(c, 0n, 100n, 1n);
    await nextBlock(first.blockNumber);
    // The block after the write took what the balance allowed: 30 slots covered, 70 not.
    const e1 = epochOf(first.blockNumber + 1n);
    let info = await rentInfo(c);
    assert.equal(info.storageSlotCount, 100);
    assert.equal(info.storageDeposit, '30000000000000');
    assert.equal(await balance(c), 0n);
    assert.equal(info.isDormant, false);
    assert.equal(info.reactivationFee, RENT.reactivationFee.toString());
    assert.equal(BigInt(info.rentOwed), 70n * RENT.rentPerSlotPerEpoch * BigInt(info.currentEpoch - e1));

    // Freeing 40 slots frees uncovered ones first: no deposit comes back.
    const second = await set(c, 0n, 40n, 0n);
    await nextBlock(second.blockNumber);
    const e2 = epochOf(second.blockNumber + 1n);
    info = await rentInfo(c);
    assert.equal(info.storageSlotCount, 60);
    assert.equal(info.storageDeposit, '30000000000000');
    assert.equal(await balance(c), 0n);
    // Freeing 50 more: the last 30 uncovered, then 20 covered slots, whose deposit returns.
    const third = await set(c, 40n, 50n, 0n);
    await nextBlock(third.blockNumber);
    const e3 = epochOf(third.blockNumber + 1n);
    info = await rentInfo(c);
    assert.equal(info.storageSlotCount, 10);
    assert.equal(info.storageDeposit, '10000000000000');
    assert.equal(await balance(c), 20_000_000_000_000n);
    assert.equal(await balance(system.rentAddress as Address), 10_000_000_000_000n, 'the module holds exactly the deposits');
    // 70 uncovered slots from e1 to e2, 30 from e2 to e3, none since.
    const owed = 70n * 1_000_000n * BigInt(e2 - e1) + 30n * 1_000_000n * BigInt(e3 - e2);
    assert.equal(BigInt(info.rentOwed), owed);
    assert.ok(owed > 0n, `the example spans epochs (${e1}, ${e2}, ${e3})`);

    // Anyone pays it; the excess comes back, the rent goes to the treasury.
    const treasury = await rentInflows();
    const before = await balance(payer.account.address);
    const paid = await send(payer, system.rentAddress as Address, encodeFunctionData({ abi: RENT_ABI, functionName: 'payRent', args: [c] }), owed + 12_345n);
    const fee = paid.gasUsed * paid.effectiveGasPrice;
    assert.equal(await balance(payer.account.address), before - fee - owed);
    assert.equal(await rentInflows(), treasury + owed);
    const event = decodeEventLog({ abi: RENT_ABI, ...paid.logs[0]! });
    assert.equal(event.eventName, 'RentPaid');
    assert.deepEqual(event.args, { account: c, payer: payer.account.address, amount: owed, rentOwed: 0n });
    info = await rentInfo(c);
    assert.equal(info.rentOwed, '0');
  });

  it('makes a 100-slot contract dormant, refuses its calls, and reactivates it exactly as it was', async () => {
    const c = await deploy();
    // svcRentEvents for this contract only, on the node's WebSocket endpoint.
    const events: Record<string, unknown>[] = [];
    const socket = new WebSocket(node.wsUrl);
    await new Promise<void>((resolve, reject) => {
      socket.once('open', () => resolve());
      socket.once('error', reject);
    });
    const subscribed = new Promise<string>((resolve, reject) => {
      socket.on('message', (data: WebSocket.RawData) => {
        const msg = JSON.parse(data.toString()) as { id?: number; result?: unknown; error?: { message: string }; params?: { result: Record<string, unknown> } };
        if (msg.id === 1) return msg.error ? reject(new Error(msg.error.message)) : resolve(msg.result as string);
        if (msg.params) events.push(msg.params.result);
      });
    });
    socket.send(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_subscribe', params: ['svcRentEvents', { address: c }] }));
    assert.match(await subscribed, /^0x[0-9a-f]+$/);
    await send(owner, c, '0x', 5n); // a balance no deposit can come out of (less than one slot)
    const written = await set(c, 0n, 100n, 7n);
    const callerHash = await owner.deployContract({ abi: caller.abi, bytecode: caller.bytecode });
    const proxy = (await client.waitForTransactionReceipt({ hash: callerHash })).contractAddress!;
    const sumData = encodeFunctionData({ abi: target.abi, functionName: 'sum', args: [0n, 100n] });
    assert.equal(await client.call({ to: c, data: sumData }).then((r) => BigInt(r.data!)), 700n);
    const storageBefore = await Promise.all([0n, 42n, 99n].map((slot) => client.getStorageAt({ address: c, slot: `0x${slot.toString(16)}` })));

    // 100 uncovered slots owe 10^8 a epoch: past the limit after one epoch; dormant after 3 idle epochs.
    const dormant = await waitFor('dormancy', async () => {
      const info = await rentInfo(c);
      return info.isDormant ? info : undefined;
    }, 60_000, 100);
    assert.equal(dormant.storageSlotCount, 100);
    assert.equal(dormant.address, c, 'the address EIP-55 checksummed (docs/rpc.md)');
    assert.ok(dormant.currentEpoch - dormant.lastActiveEpoch >= RENT.dormancyEpochs);
    assert.ok(BigInt(dormant.rentOwed) > RENT.dormancyOwedLimit);
    assert.ok(dormant.lastActiveEpoch >= epochOf(written.blockNumber));

    // Refused: a transaction to it (admission: -32003, the spec's "Transaction rejected"), a call (code 3 with the reason), and inside another contract.
    await assert.rejects(
      owner.sendTransaction({ to: c, data: sumData, gas: 200_000n }),
      (err: Error) => /is dormant/.test(err.message) || /is dormant/.test(String((err as { details?: string }).details)),
    );
    const raw = await owner.signTransaction(await owner.prepareTransactionRequest({ to: c, data: sumData, gas: 200_000n }));
    await assert.rejects(rpc(node.rpcUrl, 'eth_sendRawTransaction', [raw]), (err: JsonRpcError) => err.code === -32003 && /is dormant/.test(err.message));
    const refused = await rpc(node.rpcUrl, 'eth_call', [{ to: c, data: sumData }, 'latest']).then(
      () => assert.fail('eth_call to a dormant contract answered'),
      (err: unknown) => err as JsonRpcError,
    );
    assert.equal(refused.code, 3);
    assert.match(refused.message, new RegExp(`rent: account ${c.toLowerCase()} is dormant`));
    const inner = await send(owner, proxy, encodeFunctionData({ abi: caller.abi, functionName: 'callSum', args: [c, 0n, 100n] }));
    const called = decodeEventLog({ abi: caller.abi, ...inner.logs[0]! }) as unknown as { args: { ok: boolean; data: Hex } };
    assert.equal(called.args.ok, false, 'a call from a contract into a dormant one fails');
    assert.match(Buffer.from(called.args.data.slice(138), 'hex').toString('utf8'), /is dormant/);

    // Nothing is lost: storage and balance read as before; the root still commits to them.
    assert.deepEqual(await Promise.all([0n, 42n, 99n].map((slot) => client.getStorageAt({ address: c, slot: `0x${slot.toString(16)}` }))), storageBefore);
    assert.equal(await balance(c), 5n);

    // Too little is refused; the right amount from another account reactivates it.
    const owedNow = BigInt((await rentInfo(c)).rentOwed);
    await assert.rejects(
      client.call({ account: payer.account, to: system.rentAddress as Address, data: encodeFunctionData({ abi: RENT_ABI, functionName: 'reactivate', args: [c] }), value: RENT.reactivationFee }),
      /reactivation of .* needs/,
    );
    const treasury = await rentInflows();
    const extra = 10n ** 15n;
    const r = await send(payer, system.rentAddress as Address, encodeFunctionData({ abi: RENT_ABI, functionName: 'reactivate', args: [c] }), RENT.reactivationFee + owedNow + extra);
    const event = decodeEventLog({ abi: RENT_ABI, ...r.logs[0]! }) as { eventName: string; args: { account: Address; rentPaid: bigint; fee: bigint } };
    assert.equal(event.eventName, 'AccountReactivated');
    assert.equal(event.args.account, c);
    assert.equal(event.args.fee, RENT.reactivationFee);
    // The rent owed grows with the epoch: what was paid is what was owed in the reactivation's block.
    assert.ok(event.args.rentPaid >= owedNow);
    assert.equal(await rentInflows(), treasury + RENT.reactivationFee + event.args.rentPaid);
    const after = await rentInfo(c);
    assert.equal(after.isDormant, false);
    // Paid off at the reactivation; the 100 uncovered slots owe again from that epoch on.
    assert.equal(BigInt(after.rentOwed), 100n * RENT.rentPerSlotPerEpoch * BigInt(after.currentEpoch - epochOf(r.blockNumber)));
    assert.equal(after.lastActiveEpoch, epochOf(r.blockNumber));
    assert.equal(after.storageSlotCount, 100);
    assert.deepEqual(await Promise.all([0n, 42n, 99n].map((slot) => client.getStorageAt({ address: c, slot: `0x${slot.toString(16)}` }))), storageBefore);
    assert.equal(await balance(c), 5n);
    assert.equal(await client.call({ to: c, data: sumData }).then((x) => BigInt(x.data!)), 700n);
    const again = await send(owner, proxy, encodeFunctionData({ abi: caller.abi, functionName: 'callSum', args: [c, 0n, 100n] }));
    const ok = decodeEventLog({ abi: caller.abi, ...again.logs[0]! }) as unknown as { args: { ok: boolean; data: Hex } };
    assert.equal(ok.args.ok, true);
    assert.equal(BigInt(ok.args.data), 700n);

    // The subscription sent both changes, in block order.
    await waitFor('the reactivation event', async () => (events.length >= 2 ? true : undefined), 10_000, 20);
    socket.close();
    assert.equal(events.length, 2);
    assert.deepEqual(events[0], { event: 'dormant', account: c.toLowerCase(), epoch: events[0]!.epoch, blockNumber: events[0]!.blockNumber, rentOwed: events[0]!.rentOwed });
    assert.ok(BigInt(events[0]!.rentOwed as string) > RENT.dormancyOwedLimit);
    assert.equal(Number(events[0]!.epoch) % 1, 0);
    assert.equal(Number(events[0]!.blockNumber) % STAKING.epochLengthBlocks, 0, 'dormancy comes at an epoch start');
    assert.deepEqual(events[1], {
      event: 'reactivated',
      account: c.toLowerCase(),
      epoch: `0x${epochOf(r.blockNumber).toString(16)}`,
      blockNumber: `0x${r.blockNumber.toString(16)}`,
      payer: payer.account.address.toLowerCase(),
      rentPaid: `0x${event.args.rentPaid.toString(16)}`,
      fee: `0x${RENT.reactivationFee.toString(16)}`,
      transactionHash: r.transactionHash,
    });

    // The explorer's address page carries the same rent fields (read within one epoch: the rent owed grows with it),
    // and the rent module's address that takes payRent and reactivate.
    for (let attempt = 0; ; attempt++) {
      const page = (await (await fetch(`${node.explorerUrl}/api/v1/addresses/${c}`)).json()) as { data: { rent: Record<string, unknown> } };
      const { address: _a, ...fields } = await rentInfo(c);
      if (page.data.rent.currentEpoch !== fields.currentEpoch && attempt < 5) continue;
      assert.deepEqual(page.data.rent, { ...fields, exempt: false, module: getAddress(system.rentAddress) });
      break;
    }
  });

  it('keeps exempt contracts out of rent and answers bad input with -32602', async () => {
    for (const exempt of [MULTICALL3_ADDRESS as Address, system.stakingAddress as Address]) {
      const info = await rentInfo(exempt);
      assert.equal(info.storageDeposit, '0');
      assert.equal(info.rentOwed, '0');
      assert.equal(info.isDormant, false);
    }
    await assert.rejects(
      client.call({ account: payer.account, to: system.rentAddress as Address, data: encodeFunctionData({ abi: RENT_ABI, functionName: 'payRent', args: [MULTICALL3_ADDRESS] }), value: 1n }),
      /exempt from rent/,
    );
    await assert.rejects(rpc(node.rpcUrl, 'svc_getAccountRentInfo', ['0x1234']), (err: JsonRpcError) => err.code === -32602);
    await assert.rejects(rpc(node.rpcUrl, 'svc_getAccountRentInfo', []), (err: JsonRpcError) => err.code === -32602);
    // An account that never held storage: nothing owed, never tracked.
    const fresh = await rentInfo(payer.account.address);
    assert.deepEqual(
      { ...fresh, currentEpoch: 0 },
      { address: payer.account.address, storageDeposit: '0', storageSlotCount: 0, lastActiveEpoch: 0, isDormant: false, rentOwed: '0', currentEpoch: 0, reactivationFee: RENT.reactivationFee.toString() },
    );
  });

  it('replays the chain from block data to the same roots', async () => {
    await node.stop();
    const to = path.join(mkdtempSync(path.join(tmpdir(), 'svc-rent-replay-')), 'chain');
    dirs.push(path.dirname(to));
    const genesis = { spec: devGenesis('devnet'), validators: devGenesisValidators() };
    const result = await replayChain({ from: dataDir, to, genesis, chainId: DEV_CHAIN_ID, stakingParams: STAKING, rentParams: RENT, log: pino({ level: 'silent' }) });
    assert.ok(result.blocks > 20, `${result.blocks} blocks replayed`);
  });
});
