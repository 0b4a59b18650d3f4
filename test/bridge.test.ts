// The bridge end to end between a devnet node and a real external chain (a Hardhat node): SvcBridge
// deployed there with the devnet's genesis validator as its set; the node started with
// --bridge-rpc / --bridge-contract watches it, attests, signs and relays. ETH and an ERC-20 are
// deposited and minted on svc exactly once; withdrawals burn on svc and are released on the
// external chain; svc_getBridgeStatus moves with each step. Refused with nothing minted or
// released: a deposit to another contract, a deposit reorganised away before its confirmations, a
// forged or replayed signature, a release relayed twice, attestations from an account that is not a
// bonded validator. (Thresholds with several validators: test/bridge-module.test.ts.)
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import {
  createPublicClient,
  createWalletClient,
  defineChain,
  encodeFunctionData,
  getAddress,
  http,
  parseEther,
  type Abi,
  type Address,
  type Chain,
  type Hex,
  type PublicClient,
  type Transport,
  type WalletClient,
  type PrivateKeyAccount,
} from 'viem';
import { privateKeyToAccount, sign } from 'viem/accounts';
import { io as connect, type Socket } from 'socket.io-client';
import { svcBridgeAbi, svcBridgeBytecode } from '../src/bridge/contract.generated.js';
import { BRIDGE_ABI, type BridgeStatus } from '../src/modules/bridge/index.js';
import { startNode, type RunningNode } from '../src/node.js';
import { devGenesis, devGenesisValidators } from '../src/chain/genesis.js';
import { replayChain } from '../src/chain/replay.js';
import { pino } from 'pino';
import { system } from '../src/params.js';
import { devPrivateKeys } from './support/dev-accounts.js';
import { explorerClient } from './support/explorer-client.js';
import { startHardhat, type HardhatPeer } from './support/hardhat.js';
import { JsonRpcError, rpc, waitFor } from './support/json-rpc.js';
import { devnetConfig } from './support/node-config.js';
import { repoRoot } from './support/repo.js';
import { compileContract } from './support/solc.js';
import { svcDevnet } from './support/viem-chain.js';

const EXTERNAL_CHAIN_ID = 31_337;
const CONFIRMATIONS = 2;
const BRIDGE = system.bridgeAddress as Address;
const GENESIS_STAKE = 1_000n * 10n ** 18n;

type Status = BridgeStatus;

/** Waits until `probe` gives something other than undefined or false. */
const until = <T>(what: string, probe: () => Promise<T | undefined | false>, timeoutMs = 30_000): Promise<T> =>
  waitFor(what, async () => {
    const v = await probe();
    return v === false ? undefined : v;
  }, timeoutMs, 100);

describe('the bridge between a devnet and an external chain', { timeout: 240_000 }, () => {
  let hardhat: HardhatPeer;
  let node: RunningNode;
  let dataDir: string;
  let ext: PublicClient<Transport, Chain>;
  let extWallet: WalletClient<Transport, Chain, PrivateKeyAccount>;
  let svc: PublicClient<Transport, Chain>;
  let user: WalletClient<Transport, Chain, PrivateKeyAccount>;
  let bridge: Address;
  let other: Address;
  let token: Address;
  const validatorKey = devPrivateKeys(1)[0]!;
  const validator = privateKeyToAccount(validatorKey).address;
  const userKey = devPrivateKeys(6)[5]!;
  const userAddress = privateKeyToAccount(userKey).address;
  const api = explorerClient(() => `${node.explorerUrl}/api/v1`);
  let socket: Socket;
  const feed: { payload: Record<string, unknown>; room: string }[] = [];
  const extRecipient = getAddress('0x00000000000000000000000000000000000e7701');
  const status = () => rpc(node.rpcUrl, 'svc_getBridgeStatus', []) as Promise<Status>;
  const mine = (blocks: number) => rpc(hardhat.url, 'hardhat_mine', [`0x${blocks.toString(16)}`]);
  const wrapped = async (holder: Address) =>
    BigInt(
      (await svc.call({ to: BRIDGE, data: encodeFunctionData({ abi: BRIDGE_ABI, functionName: 'wrappedBalanceOf', args: [token, holder] }) })).data!,
    );
  const svcBalance = (a: Address) => svc.getBalance({ address: a });
  /** Waits for svc blocks, so that the node had passes to act on what it may read. */
  const svcBlocks = async (n: number) => {
    const start = await svc.getBlockNumber({ cacheTime: 0 });
    await until(`${n} svc blocks`, async () => (await svc.getBlockNumber({ cacheTime: 0 })) >= start + BigInt(n));
  };

  before(async () => {
    hardhat = await startHardhat({ chainId: EXTERNAL_CHAIN_ID });
    const chain = defineChain({ id: EXTERNAL_CHAIN_ID, name: 'external', nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 }, rpcUrls: { default: { http: [hardhat.url] } } });
    ext = createPublicClient({ chain, transport: http(hardhat.url), pollingInterval: 50 });
    extWallet = createWalletClient({ account: privateKeyToAccount(userKey), chain, transport: http(hardhat.url), pollingInterval: 50 });
    const deploy = async (args: readonly unknown[]) => {
      const hash = await extWallet.deployContract({ abi: svcBridgeAbi, bytecode: svcBridgeBytecode, args: args as never });
      return (await ext.waitForTransactionReceipt({ hash })).contractAddress!;
    };
    bridge = await deploy([9000n, [validator], [GENESIS_STAKE]]);
    other = await deploy([9000n, [validator], [GENESIS_STAKE]]);
    const tokenArtifact = compileContract('TestToken.sol', 'TestToken');
    const hash = await extWallet.deployContract({ abi: tokenArtifact.abi, bytecode: tokenArtifact.bytecode, args: [10n ** 24n] });
    token = (await ext.waitForTransactionReceipt({ hash })).contractAddress!;

    dataDir = mkdtempSync(path.join(tmpdir(), 'svc-bridge-'));
    node = await startNode(
      devnetConfig(dataDir, { blockTimeMs: 200, bridgeRpc: hardhat.url, bridgeContract: bridge.toLowerCase(), bridgeConfirmations: CONFIRMATIONS, bridgeRelay: true }),
    );
    svc = createPublicClient({ chain: svcDevnet(node.rpcUrl), transport: http(node.rpcUrl), pollingInterval: 50 });
    user = createWalletClient({ account: privateKeyToAccount(userKey), chain: svcDevnet(node.rpcUrl), transport: http(node.rpcUrl), pollingInterval: 50 });
    socket = connect(node.explorerUrl, { transports: ['websocket'] });
    await new Promise<void>((resolve, reject) => {
      socket.once('connect', () => resolve());
      socket.once('connect_error', reject);
    });
    socket.on('bridge_event', (payload: Record<string, unknown>, room: string) => feed.push({ payload, room }));
    assert.deepEqual(await socket.timeout(5_000).emitWithAck('join', 'bridge:events'), { ok: true, data: { room: 'bridge:events' } });
  });

  after(async () => {
    socket?.disconnect();
    await node?.stop();
    await hardhat?.stop();
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  });

  it('reports an active bridge with the genesis validator as its set before anything crossed', async () => {
    const s = await until('an active status', async () => {
      const x = await status();
      return x.active ? x : undefined;
    });
    assert.deepEqual(s, { active: true, validatorCount: 1, threshold: 6_667, totalDeposits: 0, totalWithdrawals: 0, pendingDeposits: 0, pendingWithdrawals: 0, totalValueLocked: '0' });
  });

  it('mints an ETH deposit once it is confirmed, exactly once; never one to another contract or one reorganised away', async () => {
    const before = await svcBalance(userAddress);
    // A deposit seen at 1 confirmation, then reorganised away.
    const snapshot = (await rpc(hardhat.url, 'evm_snapshot', [])) as string;
    const ghost = await extWallet.writeContract({ address: bridge, abi: svcBridgeAbi, functionName: 'depositETH', args: [userAddress], value: parseEther('7') });
    await ext.waitForTransactionReceipt({ hash: ghost });
    await svcBlocks(5);
    assert.equal((await status()).pendingDeposits, 0, 'not attested at 1 confirmation');
    assert.equal(await rpc(hardhat.url, 'evm_revert', [snapshot]), true);
    // A deposit to another SvcBridge, and the real one.
    await extWallet.writeContract({ address: other, abi: svcBridgeAbi, functionName: 'depositETH', args: [userAddress], value: parseEther('5') });
    const tx = await extWallet.writeContract({ address: bridge, abi: svcBridgeAbi, functionName: 'depositETH', args: [userAddress], value: parseEther('1') });
    await ext.waitForTransactionReceipt({ hash: tx });
    await mine(CONFIRMATIONS);
    await until('the deposit minted', async () => (await svcBalance(userAddress)) === before + parseEther('1'));
    let s = await status();
    assert.equal(s.totalDeposits, 1);
    assert.equal(s.pendingDeposits, 0);
    assert.equal(s.totalValueLocked, parseEther('1').toString());
    const d = (await rpc(node.rpcUrl, 'svc_getBridgeDeposit', [1])) as { status: string; amount: string; attestations: { attesters: string[] }[] };
    assert.equal(d.status, 'minted');
    assert.equal(d.amount, parseEther('1').toString());
    assert.deepEqual(d.attestations.map((a) => a.attesters), [[validator]], 'one content, attested once');
    // More blocks on both sides: nothing more minted (not the 7 reorganised away, not the 5 sent elsewhere).
    await mine(CONFIRMATIONS + 3);
    await svcBlocks(8);
    assert.equal(await svcBalance(userAddress), before + parseEther('1'));
    s = await status();
    assert.equal(s.totalDeposits, 1);
    assert.equal(s.pendingDeposits, 0);
    await assert.rejects(rpc(node.rpcUrl, 'svc_getBridgeDeposit', [2]), (e: JsonRpcError) => e.code === -32001 && e.message === 'bridge deposit 2 not found');
    for (const bad of [0, 'abc', -1, 2 ** 53, '0x']) {
      await assert.rejects(rpc(node.rpcUrl, 'svc_getBridgeDeposit', [bad]), (e: JsonRpcError) => e.code === -32602, `nonce ${String(bad)}`);
      await assert.rejects(rpc(node.rpcUrl, 'svc_getBridgeWithdrawal', [bad]), (e: JsonRpcError) => e.code === -32602, `id ${String(bad)}`);
    }
    await assert.rejects(rpc(node.rpcUrl, 'svc_getBridgeDeposit', []), (e: JsonRpcError) => e.code === -32602, 'the nonce is required');
    // The explorer and the live feed say the same.
    const view = await api.ok('/bridge');
    assert.equal(view.totalDeposits, 1);
    assert.equal(view.contract, bridge.toLowerCase());
    assert.equal(view.externalChainId, EXTERNAL_CHAIN_ID);
    assert.equal((await api.ok('/bridge/deposits/1')).recipient, userAddress);
    assert.match(await api.refused('/bridge/deposits/2', 404), /bridge deposit 2 not found/);
    await api.refused('/bridge/deposits/0', 400);
    const minted = feed.filter((e) => e.payload.kind === 'deposit-minted');
    assert.equal(minted.length, 1);
    assert.deepEqual({ ...minted[0]!.payload, blockNumber: 0 }, { kind: 'deposit-minted', blockNumber: 0, nonce: 1, token: '0x0000000000000000000000000000000000000000', recipient: userAddress, amount: parseEther('1').toString() });
    assert.equal(minted[0]!.room, 'bridge:events');
  });

  it('mints an ERC-20 deposit as the wrapped token the module keeps', async () => {
    const approve = await extWallet.writeContract({ address: token, abi: compileContract('TestToken.sol', 'TestToken').abi, functionName: 'approve', args: [bridge, 500n] });
    await ext.waitForTransactionReceipt({ hash: approve });
    const tx = await extWallet.writeContract({ address: bridge, abi: svcBridgeAbi, functionName: 'depositERC20', args: [token, 500n, userAddress] });
    await ext.waitForTransactionReceipt({ hash: tx });
    await mine(CONFIRMATIONS);
    await until('the token deposit minted', async () => (await wrapped(userAddress)) === 500n);
    const s = await status();
    assert.equal(s.totalDeposits, 2);
    assert.equal(s.totalValueLocked, parseEther('1').toString(), 'ETH only');
  });

  it('burns a withdrawal on svc, relays it to the contract with the validator signature, and settles it once released', async () => {
    const balanceBefore = await svcBalance(userAddress);
    const hash = await user.writeContract({ address: BRIDGE, abi: BRIDGE_ABI, functionName: 'withdraw', args: [getAddress('0x0000000000000000000000000000000000000000'), extRecipient, parseEther('0.4')], value: parseEther('0.4') });
    const receipt = await svc.waitForTransactionReceipt({ hash });
    assert.equal(receipt.status, 'success');
    assert.equal(await svcBalance(BRIDGE), 0n, 'the module holds nothing after the block');
    assert.equal(balanceBefore - (await svcBalance(userAddress)), parseEther('0.4') + receipt.gasUsed * receipt.effectiveGasPrice);
    assert.equal(node.app.bridge.totals()['0x0000000000000000000000000000000000000000']!.withdrawn, parseEther('0.4'), 'burned: withdrawn and not in any account');
    assert.equal((await status()).pendingWithdrawals, 1);
    await until('the release on the external chain', async () => (await ext.getBalance({ address: extRecipient })) === parseEther('0.4'), 60_000);
    assert.equal(await ext.readContract({ address: bridge, abi: svcBridgeAbi, functionName: 'locked', args: ['0x0000000000000000000000000000000000000000'] }), parseEther('0.6'));
    await mine(CONFIRMATIONS);
    const s = await until('the release attested', async () => {
      const x = await status();
      return x.totalWithdrawals === 1 ? x : undefined;
    });
    assert.equal(s.pendingWithdrawals, 0);
    assert.equal(s.totalValueLocked, parseEther('0.6').toString());
    assert.equal(s.active, true, "the contract's locked ETH matches what svc owes");
    const page = await api.ok('/bridge/withdrawals?status=released');
    assert.deepEqual(page.items.map((x: { id: number }) => x.id), [1]);
    assert.deepEqual(feed.filter((e) => e.payload.id === 1).map((e) => e.payload.kind), ['withdrawal-ready', 'withdrawal-released']);
    const w = (await rpc(node.rpcUrl, 'svc_getBridgeWithdrawal', [1])) as { status: string; signatures: { validator: string; signature: Hex }[]; digest: Hex };
    assert.equal(w.status, 'released');
    assert.equal(w.digest, await ext.readContract({ address: bridge, abi: svcBridgeAbi, functionName: 'withdrawalDigest', args: [1n, getAddress('0x0000000000000000000000000000000000000000'), extRecipient, parseEther('0.4')] }));

    // Relayed twice: the contract refuses the second; on svc the release cannot be attested again.
    const sig = w.signatures[0]!.signature;
    const v = Number.parseInt(sig.slice(130), 16);
    await assert.rejects(
      ext.simulateContract({
        account: extWallet.account,
        address: bridge,
        abi: svcBridgeAbi,
        functionName: 'withdraw',
        args: [1n, getAddress('0x0000000000000000000000000000000000000000'), extRecipient, parseEther('0.4'), [{ v, r: `0x${sig.slice(2, 66)}`, s: `0x${sig.slice(66, 130)}` }]],
      }),
      /AlreadyReleased/,
    );
    await assert.rejects(
      svc.call({ account: validator, to: BRIDGE, data: encodeFunctionData({ abi: BRIDGE_ABI, functionName: 'attestRelease', args: [1n] }) }),
      /withdrawal 1 is already released/,
    );
  });

  it('releases a wrapped-token withdrawal on the external chain', async () => {
    const hash = await user.writeContract({ address: BRIDGE, abi: BRIDGE_ABI, functionName: 'withdraw', args: [token, extRecipient, 200n] });
    assert.equal((await svc.waitForTransactionReceipt({ hash })).status, 'success');
    assert.equal(await wrapped(userAddress), 300n);
    const erc20 = compileContract('TestToken.sol', 'TestToken').abi;
    await until('the token release', async () => (await ext.readContract({ address: token, abi: erc20, functionName: 'balanceOf', args: [extRecipient] })) === 200n, 60_000);
    await mine(CONFIRMATIONS);
    await until('the token release attested', async () => (await status()).totalWithdrawals === 2);
  });

  it('bridges a new set when stake moves: recorded at an epoch start, signed, relayed with updateValset and attested', async () => {
    const staking = JSON.parse(readFileSync(path.join(repoRoot(), 'abi', 'staking.json'), 'utf8')) as Abi;
    const hash = await user.writeContract({ address: system.stakingAddress as Address, abi: staking, functionName: 'delegate', args: [validator], value: parseEther('200') });
    assert.equal((await svc.waitForTransactionReceipt({ hash })).status, 'success');
    await until('the contract took set 1', async () => {
      const [, , nonce] = await ext.readContract({ address: bridge, abi: svcBridgeAbi, functionName: 'validatorSet' });
      return nonce === 1n;
    }, 60_000);
    await mine(CONFIRMATIONS);
    await until('the update attested on svc', async () => node.app.bridge.valset?.nonce === 1);
    const [validators, powers] = await ext.readContract({ address: bridge, abi: svcBridgeAbi, functionName: 'validatorSet' });
    assert.deepEqual(validators, [validator]);
    assert.deepEqual(powers, node.app.bridge.valset!.powers);
    assert.ok(powers[0]! >= GENESIS_STAKE + parseEther('200'), 'the power is the bonded stake with the delegation');
    await until('active again', async () => (await status()).active);
    // A withdrawal signed by the new set is released.
    const w = await user.writeContract({ address: BRIDGE, abi: BRIDGE_ABI, functionName: 'withdraw', args: [token, extRecipient, 50n] });
    assert.equal((await svc.waitForTransactionReceipt({ hash: w })).status, 'success');
    const erc20 = compileContract('TestToken.sol', 'TestToken').abi;
    await until('released under set 1', async () => (await ext.readContract({ address: token, abi: erc20, functionName: 'balanceOf', args: [extRecipient] })) === 250n, 60_000);
    await mine(CONFIRMATIONS);
    await until('the release attested', async () => (await status()).totalWithdrawals === 3);
  });

  it('refuses attestations from an account that is not a bonded validator, and forged or replayed signatures', async () => {
    const forger = devPrivateKeys(3)[2]!;
    await assert.rejects(
      svc.call({ account: userAddress, to: BRIDGE, data: encodeFunctionData({ abi: BRIDGE_ABI, functionName: 'attestDeposit', args: [3n, getAddress('0x0000000000000000000000000000000000000000'), userAddress, userAddress, parseEther('100')] }) }),
      /is not a bonded validator's operator/,
    );
    // An open withdrawal, then signatures that are not the validator's of its digest. The node's own
    // agent is stopped first so that it does not sign and relay it meanwhile.
    node.services.bridge.close();
    const hash = await user.writeContract({ address: BRIDGE, abi: BRIDGE_ABI, functionName: 'withdraw', args: [token, extRecipient, 1n] });
    await svc.waitForTransactionReceipt({ hash });
    const w3 = (await rpc(node.rpcUrl, 'svc_getBridgeWithdrawal', [4])) as { digest: Hex; status: string };
    const w1 = (await rpc(node.rpcUrl, 'svc_getBridgeWithdrawal', [1])) as { signatures: { signature: Hex }[] };
    const attempt = (signature: Hex) =>
      svc.call({ account: validator, to: BRIDGE, data: encodeFunctionData({ abi: BRIDGE_ABI, functionName: 'signWithdrawal', args: [4n, signature] }) });
    await assert.rejects(attempt(await sign({ hash: w3.digest, privateKey: forger, to: 'hex' })), /the signature is not/);
    await assert.rejects(attempt(w1.signatures[0]!.signature), /the signature is not/, "withdrawal 1's signature replayed for 4");
    await attempt(await sign({ hash: w3.digest, privateKey: validatorKey, to: 'hex' }));
    assert.equal(w3.status, 'signing');
    const s = await status();
    assert.equal(s.pendingWithdrawals, 1);
    assert.equal(s.totalDeposits, 2, 'nothing more minted');
  });

  it('reaches the same root at every height when the chain is replayed from its block data', async () => {
    const head = await svc.getBlock({ blockTag: 'latest' });
    const roots = new Map<number, string>();
    await node.stop();
    const to = path.join(mkdtempSync(path.join(tmpdir(), 'svc-bridge-replay-')), 'chain');
    try {
      // The devnet genesis this node was started with: its bridge came from the flags and the external chain id.
      const genesis = { spec: devGenesis('devnet'), validators: devGenesisValidators(), bridge: node.config.devnetBridge! };
      assert.equal(genesis.bridge.contract, bridge.toLowerCase());
      const result = await replayChain({ from: dataDir, to, genesis, chainId: 9000, log: pino({ level: 'silent' }), onBlock: (h, root) => roots.set(h, `0x${root.toString('hex')}`) });
      // replayChain checks each block's hash and state root against the stored block and stops at the first that differs.
      assert.ok(result.blocks >= Number(head.number));
      assert.equal(roots.get(Number(head.number)), head.stateRoot);
    } finally {
      rmSync(path.dirname(to), { recursive: true, force: true });
    }
  });
});
