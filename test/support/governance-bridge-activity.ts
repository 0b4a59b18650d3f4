// A devnet node where governance and the bridge have done their work, for the explorer's governance
// and bridge pages: a parameter change and a treasury spend in two parts both passed (the change in
// force, the spend paid), and a bridge round trip with a Hardhat node as the external chain (an ETH
// deposit minted on svc, a withdrawal burned, signed, released there and its release attested).
// Short periods (4 s vote, 6 s deposit, 10-block epochs, 200 ms blocks) keep it to seconds.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import {
  createPublicClient,
  createWalletClient,
  getAddress,
  http,
  parseEther,
  parseEventLogs,
  type Abi,
  type Address,
  type Hash,
  type Hex,
  type PublicClient,
} from 'viem';
import { privateKeyToAccount, type PrivateKeyAccount } from 'viem/accounts';
import { BRIDGE_ABI } from '../../src/modules/bridge/index.js';
import { startNode, type RunningNode } from '../../src/node.js';
import { governance as defaultGovernance, staking as defaultStaking, system } from '../../src/params.js';
import { devPrivateKeys } from './dev-accounts.js';
import { startHardhat, type HardhatPeer } from './hardhat.js';
import { rpc, waitFor } from './json-rpc.js';
import { bridgeRoundTrip, CONFIRMATIONS, deployExternalBridge, EXTERNAL_CHAIN_ID } from './module-activity.js';
import { devnetConfig } from './node-config.js';
import { repoRoot } from './repo.js';
import { svcDevnet } from './viem-chain.js';

const GOV_ABI = JSON.parse(readFileSync(path.join(repoRoot(), 'abi', 'governance.json'), 'utf8')) as Abi;
const GOV = system.governanceAddress as Address;
const BRIDGE = system.bridgeAddress as Address;
const ETHER = 10n ** 18n;
const ETH_TOKEN = getAddress('0x0000000000000000000000000000000000000000');

export const PARAM_NAME = 'governance.modelRetirementGraceBlocks';
export const PARAM_VALUE = 50n;
export const SPEND = ETHER / 2n;
export const SPEND_PARTS = 2;
export const DEPOSIT = parseEther('1');
export const WITHDRAWAL = parseEther('0.4');

export interface GovernanceBridgeActivity {
  node: RunningNode;
  explorerUrl: string;
  /** The parameter change (passed, in force) and the treasury spend (passed, paid in full). */
  changeId: number;
  spendId: number;
  /** Whose transactions: the validator voted, the proposer proposed, the depositor deposited. */
  validator: Address;
  proposer: Address;
  depositor: Address;
  spendRecipient: Address;
  /** Bridge deposit nonce 1 (minted) and withdrawal id 1 (released), by the bridge user. */
  bridgeUser: Address;
  externalRecipient: Address;
  /** The vote transaction on the parameter change. */
  voteTx: Hash;
  stop(): Promise<void>;
}

/** Waits until the explorer's index has caught up with the head. */
async function indexed(explorerUrl: string): Promise<void> {
  await waitFor('the index to catch up', async () => {
    const res = await fetch(`${explorerUrl}/api/v1/health/ready`);
    const body = (await res.json()) as { data?: { lag: number } };
    return res.status === 200 && body.data?.lag === 0 ? true : undefined;
  });
}

export async function startGovernanceBridgeActivity(): Promise<GovernanceBridgeActivity> {
  const keys = devPrivateKeys(6);
  const [validator, proposer, depositor] = keys.slice(0, 3).map((k) => privateKeyToAccount(k)) as [PrivateKeyAccount, PrivateKeyAccount, PrivateKeyAccount];
  const user = privateKeyToAccount(keys[5]!);
  const spendRecipient = getAddress(`0x${'5e'.repeat(20)}`);
  const externalRecipient = getAddress('0x00000000000000000000000000000000000e7701');

  // The external chain and the bridge contract there, with the genesis validator as its set.
  const hardhat: HardhatPeer = await startHardhat({ chainId: EXTERNAL_CHAIN_ID });
  let node: RunningNode | undefined;
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'svc-explorer-governance-'));
  const stop = async () => {
    await node?.stop();
    await hardhat.stop();
    rmSync(dataDir, { recursive: true, force: true });
  };
  try {
    const external = await deployExternalBridge(hardhat, user, validator.address);
    const bridge = external.contract;

    node = await startNode(
      devnetConfig(dataDir, { blockTimeMs: 200, bridgeRpc: hardhat.url, bridgeContract: bridge.toLowerCase(), bridgeConfirmations: CONFIRMATIONS, bridgeRelay: true }),
      { governanceParams: { ...defaultGovernance, votingPeriodSeconds: 4, depositPeriodSeconds: 6 }, stakingParams: { ...defaultStaking, epochLengthBlocks: 10 } },
    );
    const rpcUrl = node.rpcUrl;
    const svc = createPublicClient({ chain: svcDevnet(rpcUrl), transport: http(rpcUrl), pollingInterval: 50 }) as PublicClient;
    const wallet = (account: PrivateKeyAccount) => createWalletClient({ account, chain: svcDevnet(rpcUrl), transport: http(rpcUrl), pollingInterval: 50 });
    const mined = async (hash: Hash) => {
      const r = await svc.waitForTransactionReceipt({ hash, pollingInterval: 50 });
      if (r.status !== 'success') throw new Error(`${hash} failed`);
      return r;
    };
    const gov = async (from: PrivateKeyAccount, functionName: string, args: unknown[], value = 0n) =>
      mined(await wallet(from).writeContract({ address: GOV, abi: GOV_ABI, functionName, args, value, gas: 1_000_000n } as never));
    const submitted = (logs: Parameters<typeof parseEventLogs>[0]['logs']) => {
      const [e] = parseEventLogs({ abi: GOV_ABI, logs, eventName: 'ProposalSubmitted' });
      if (!e) throw new Error('no ProposalSubmitted log');
      return Number((e.args as { proposalId: bigint }).proposalId);
    };

    // Governance first, so that the validator's votes are in before the bridge agent sends from the same account.
    const change = await gov(proposer, 'submitParameterChange', ['Shorter retirement grace', 'Miners need 50 blocks to finish.', [PARAM_NAME], [PARAM_VALUE]]);
    const changeId = submitted(change.logs);
    await gov(depositor, 'deposit', [BigInt(changeId)], 10n * ETHER);
    const spend = await gov(proposer, 'submitTreasurySpend', ['Audit', 'Pay the auditors in two parts.', spendRecipient, SPEND, SPEND_PARTS], 10n * ETHER);
    const spendId = submitted(spend.logs);
    const vote = await gov(validator, 'vote', [BigInt(changeId), 1]);
    await gov(validator, 'vote', [BigInt(spendId), 1]);

    // The bridge round trip while the votes run: an ETH deposit there, minted here once confirmed; a
    // withdrawal burned here, signed and relayed there, and its release attested here.
    await bridgeRoundTrip(external, rpcUrl, {
      deposit: DEPOSIT,
      withdrawal: WITHDRAWAL,
      recipient: externalRecipient,
      withdraw: async () => mined(await wallet(user).writeContract({ address: BRIDGE, abi: BRIDGE_ABI, functionName: 'withdraw', args: [ETH_TOKEN, externalRecipient, WITHDRAWAL], value: WITHDRAWAL })),
    });

    // Both proposals passed and carried out: the change in force, every part of the spend paid.
    await waitFor(
      'the parameter change in force',
      async () => {
        const g = await rpc<{ params: { name: string; value: Hex; pending: unknown[] }[] }>(rpcUrl, 'svc_getGovernanceParams');
        const p = g.params.find((x) => x.name === PARAM_NAME);
        return p && BigInt(p.value) === PARAM_VALUE && p.pending.length === 0 ? true : undefined;
      },
      60_000,
      100,
    );
    await waitFor('the spend paid', async () => ((await rpc<{ spendsPaid: number }>(rpcUrl, 'svc_getTreasuryInfo')).spendsPaid === 1 ? true : undefined), 60_000, 100);
    await indexed(node.explorerUrl);

    return {
      node,
      explorerUrl: node.explorerUrl,
      changeId,
      spendId,
      validator: validator.address,
      proposer: proposer.address,
      depositor: depositor.address,
      spendRecipient,
      bridgeUser: user.address,
      externalRecipient,
      voteTx: vote.transactionHash,
      stop,
    };
  } catch (err) {
    await stop();
    throw err;
  }
}
