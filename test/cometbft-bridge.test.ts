// The bridge on a network of four CometBFT validators (equal stake) and a Hardhat node as the
// external chain: SvcBridge deployed with the four operators; three nodes watch the external chain
// (--bridge-rpc) and attest and sign with their operator keys, the fourth does not. Three of four
// (75%) is more than 2/3: a deposit is minted on every node with exactly those three attesters, and
// a withdrawal carries their three signatures to the contract. With one of the three stopped, two of
// four (50%) attest a new deposit and nothing is minted; when it returns and attests, it is.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import {
  createPublicClient,
  createWalletClient,
  defineChain,
  encodeFunctionData,
  getAddress,
  http,
  parseEther,
  type Address,
  type Chain,
  type PrivateKeyAccount,
  type PublicClient,
  type Transport,
  type WalletClient,
} from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { svcBridgeAbi, svcBridgeBytecode } from '../src/bridge/contract.generated.js';
import { BRIDGE_ABI, type BridgeStatus } from '../src/modules/bridge/index.js';
import { system } from '../src/params.js';
import { devPrivateKeys } from './support/dev-accounts.js';
import { startHardhat, type HardhatPeer } from './support/hardhat.js';
import { rpc, waitFor } from './support/json-rpc.js';
import { basePortFor, startLocalNetwork, type LocalNetwork } from './support/testnet.js';
import { svcDevnet } from './support/viem-chain.js';

const EXTERNAL_CHAIN_ID = 31_337;
const CONFIRMATIONS = 2;
const STAKE = 1_000n * 10n ** 18n;
const ZERO = '0x0000000000000000000000000000000000000000' as const;
const BRIDGE = system.bridgeAddress as Address;

type Status = BridgeStatus;

describe('the bridge on a network of four CometBFT validators', { timeout: 300_000 }, () => {
  let hardhat: HardhatPeer;
  let net: LocalNetwork;
  let ext: PublicClient<Transport, Chain>;
  let depositor: WalletClient<Transport, Chain, PrivateKeyAccount>;
  let bridge: Address;
  const keys = devPrivateKeys(12);
  const operators = keys.slice(0, 4).map((k) => privateKeyToAccount(k).address);
  const watching = operators.slice(0, 3);
  const userKey = keys[11]!;
  const user = privateKeyToAccount(userKey).address;
  const extRecipient = getAddress('0x00000000000000000000000000000000000e7702');
  const url = (i: number) => net.nodes[i]!.url;
  const status = (i: number) => rpc<Status>(url(i), 'svc_getBridgeStatus', []);
  const balance = async (i: number, a: Address) => BigInt(await rpc<string>(url(i), 'eth_getBalance', [a, 'latest']));
  const mine = (blocks: number) => rpc(hardhat.url, 'hardhat_mine', [`0x${blocks.toString(16)}`]);
  const deposit = async (amount: bigint) => {
    const hash = await depositor.writeContract({ address: bridge, abi: svcBridgeAbi, functionName: 'depositETH', args: [user], value: amount });
    await ext.waitForTransactionReceipt({ hash });
    await mine(CONFIRMATIONS);
  };

  before(async () => {
    hardhat = await startHardhat({ chainId: EXTERNAL_CHAIN_ID });
    const chain = defineChain({ id: EXTERNAL_CHAIN_ID, name: 'external', nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 }, rpcUrls: { default: { http: [hardhat.url] } } });
    ext = createPublicClient({ chain, transport: http(hardhat.url), pollingInterval: 50 });
    depositor = createWalletClient({ account: privateKeyToAccount(userKey), chain, transport: http(hardhat.url), pollingInterval: 50 });
    const sorted = [...operators].sort((a, b) => (a.toLowerCase() < b.toLowerCase() ? -1 : 1));
    const hash = await depositor.deployContract({ abi: svcBridgeAbi, bytecode: svcBridgeBytecode, args: [9000n, sorted, sorted.map(() => STAKE)] });
    const receipt = await ext.waitForTransactionReceipt({ hash });
    bridge = receipt.contractAddress!;
    net = await startLocalNetwork({
      validators: 4,
      blockTimeMs: 200,
      basePort: basePortFor(11),
      initArgs: ['--bridge-rpc', hardhat.url, '--bridge-contract', bridge, '--bridge-confirmations', String(CONFIRMATIONS), '--bridge-from-block', String(receipt.blockNumber)],
      nodeArgs: (i) => (i < 3 ? ['--bridge-rpc', hardhat.url] : []),
    });
  });

  after(async () => {
    await net?.dispose();
    await hardhat?.stop();
  });

  it('mints a deposit attested by three of four equal validators, on every node', async () => {
    await waitFor('an active bridge', async () => ((await status(0)).active ? true : undefined), 60_000);
    assert.equal((await status(3)).validatorCount, 4);
    const before = await balance(3, user);
    await deposit(parseEther('2'));
    await waitFor('minted on every node', async () => ((await Promise.all([0, 1, 2, 3].map((i) => balance(i, user)))).every((b) => b === before + parseEther('2')) ? true : undefined), 60_000, 100);
    const d = await rpc<{ status: string; attestations: { attesters: string[] }[] }>(url(3), 'svc_getBridgeDeposit', [1]);
    assert.equal(d.status, 'minted');
    assert.deepEqual(d.attestations.map((a) => [...a.attesters].sort()), [[...watching].sort()], 'the three watching validators, and no one else');
    const statuses = await Promise.all([0, 1, 2, 3].map(status));
    for (const s of statuses) assert.deepEqual(s, statuses[0], 'every node reads the same records');
    assert.equal(statuses[0]!.totalDeposits, 1);
  });

  it('releases a withdrawal on the contract with the three signatures, and settles it on every node', async () => {
    const svcUser = createWalletClient({ account: privateKeyToAccount(userKey), chain: svcDevnet(url(3)), transport: http(url(3)), pollingInterval: 50 });
    const svc = createPublicClient({ chain: svcDevnet(url(3)), transport: http(url(3)), pollingInterval: 50 });
    const hash = await svcUser.sendTransaction({
      to: BRIDGE,
      data: encodeFunctionData({ abi: BRIDGE_ABI, functionName: 'withdraw', args: [ZERO, extRecipient, parseEther('0.5')] }),
      value: parseEther('0.5'),
    });
    assert.equal((await svc.waitForTransactionReceipt({ hash })).status, 'success');
    await waitFor('the release on the external chain', async () => ((await ext.getBalance({ address: extRecipient })) === parseEther('0.5') ? true : undefined), 60_000, 100);
    await mine(CONFIRMATIONS);
    await waitFor('settled on every node', async () => ((await Promise.all([0, 1, 2, 3].map(status))).every((s) => s.totalWithdrawals === 1 && s.pendingWithdrawals === 0) ? true : undefined), 60_000, 100);
    const w = await rpc<{ signatures: { validator: string }[]; releaseAttesters: string[] }>(url(0), 'svc_getBridgeWithdrawal', [1]);
    assert.deepEqual(w.signatures.map((s) => s.validator).sort(), [...watching].sort());
    assert.equal((await status(0)).totalValueLocked, parseEther('1.5').toString());
    assert.equal(await ext.readContract({ address: bridge, abi: svcBridgeAbi, functionName: 'locked', args: [ZERO] }), parseEther('1.5'));
  });

  it('mints nothing while only two of four (exactly half the stake) attest, and mints once the third returns', async () => {
    await net.nodes[2]!.stop();
    const before = await balance(0, user);
    await deposit(parseEther('3'));
    await waitFor('two attestations', async () => {
      const d = await rpc<{ attestations: { attesters: string[] }[] }>(url(0), 'svc_getBridgeDeposit', [2]).catch(() => undefined);
      return d && d.attestations[0]!.attesters.length === 2 ? true : undefined;
    }, 60_000, 100);
    const height = Number(await rpc<string>(url(0), 'eth_blockNumber', []));
    await waitFor('ten more blocks', async () => (Number(await rpc<string>(url(0), 'eth_blockNumber', [])) >= height + 10 ? true : undefined), 60_000, 100);
    assert.equal(await balance(0, user), before, 'nothing minted on 50% of stake');
    const s = await status(0);
    assert.equal(s.pendingDeposits, 1);
    assert.equal(s.totalDeposits, 1);
    await net.nodes[2]!.restart();
    await waitFor('minted once the third attests', async () => ((await balance(0, user)) === before + parseEther('3') ? true : undefined), 120_000, 100);
    assert.equal((await status(0)).pendingDeposits, 0);
  });
});
