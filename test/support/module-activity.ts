// Steps the activity helpers share (the recorder of test/fixtures/recorded-chain/, the explorer's
// governance and bridge pages, its chain pages): the bridge contract deployed on a Hardhat node as
// the external chain, a bridge round trip through it, and a proof of a miner's challenge task queued
// into the compute module as its intake queues a checked one.
import { createPublicClient, createWalletClient, defineChain, http, type Address, type Hex } from 'viem';
import type { PrivateKeyAccount } from 'viem/accounts';
import { svcBridgeAbi, svcBridgeBytecode } from '../../src/bridge/contract.generated.js';
import type { QueuedProof } from '../../src/modules/compute/queues.js';
import type { Address as ModuleAddress, TaskRecord } from '../../src/modules/compute/types.js';
import type { RunningNode } from '../../src/node.js';
import type { HardhatPeer } from './hardhat.js';
import { rpc, waitFor } from './json-rpc.js';

/** The external chain's id (Hardhat's). */
export const EXTERNAL_CHAIN_ID = 31_337;
/** Confirmations of the external chain before a deposit is attested. */
export const CONFIRMATIONS = 2;
/** The devnet's genesis validator's stake: the bridge contract's set starts as it. */
export const GENESIS_STAKE = 1_000n * 10n ** 18n;

/** The external chain's clients, `user`'s wallet there, and the bridge contract deployed there with `validator` as its set. */
export async function deployExternalBridge(hardhat: HardhatPeer, user: PrivateKeyAccount, validator: Address) {
  const chain = defineChain({ id: EXTERNAL_CHAIN_ID, name: 'external', nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 }, rpcUrls: { default: { http: [hardhat.url] } } });
  const ext = createPublicClient({ chain, transport: http(hardhat.url), pollingInterval: 50 });
  const extWallet = createWalletClient({ account: user, chain, transport: http(hardhat.url), pollingInterval: 50 });
  const deployed = await ext.waitForTransactionReceipt({
    hash: await extWallet.deployContract({ abi: svcBridgeAbi, bytecode: svcBridgeBytecode, args: [9000n, [validator], [GENESIS_STAKE]] as never }),
  });
  return { hardhat, ext, extWallet, user, contract: deployed.contractAddress! };
}

export type ExternalBridge = Awaited<ReturnType<typeof deployExternalBridge>>;

/**
 * A bridge round trip: an ETH deposit of `deposit` there, minted here once confirmed; then a
 * withdrawal of `withdrawal` burned here (`withdraw` sends it), released there to `recipient`, and
 * its release attested here.
 */
export async function bridgeRoundTrip(
  bridge: ExternalBridge,
  rpcUrl: string,
  trip: { deposit: bigint; withdrawal: bigint; recipient: Address; withdraw: () => Promise<unknown> },
): Promise<void> {
  const { hardhat, ext, extWallet, user } = bridge;
  const status = () => rpc<{ totalDeposits: number; totalWithdrawals: number }>(rpcUrl, 'svc_getBridgeStatus');
  await ext.waitForTransactionReceipt({
    hash: await extWallet.writeContract({ address: bridge.contract, abi: svcBridgeAbi, functionName: 'depositETH', args: [user.address], value: trip.deposit }),
  });
  await rpc(hardhat.url, 'hardhat_mine', [`0x${CONFIRMATIONS.toString(16)}`]);
  await waitFor('the deposit minted', async () => ((await status()).totalDeposits === 1 ? true : undefined), 60_000, 100);
  await trip.withdraw();
  await waitFor('the release there', async () => ((await ext.getBalance({ address: trip.recipient })) === trip.withdrawal ? true : undefined), 60_000, 100);
  await rpc(hardhat.url, 'hardhat_mine', [`0x${CONFIRMATIONS.toString(16)}`]);
  await waitFor('the release attested', async () => ((await status()).totalWithdrawals === 1 ? true : undefined), 60_000, 100);
}

/**
 * A proof of `miner`'s newest open challenge task, queued into the compute module as its intake
 * queues a checked one, and waited for until a block includes it. `prove` gives what the proof
 * claims of the task: its id, output hash and signature (the rest is the same in every helper).
 */
export async function queueChallengeProof(
  node: RunningNode,
  miner: ModuleAddress,
  prove: (task: TaskRecord, claim: { validator: ModuleAddress; executionTimeMs: number; flops: bigint }) => { id: Hex; outputHash: Hex; signature: Hex },
): Promise<{ task: TaskRecord; proof: QueuedProof }> {
  const compute = node.services.app.compute;
  const task = await waitFor(
    'challenge tasks',
    async () => {
      const open = compute.openTasksOf(miner).filter((t) => !compute.isProofQueued(t.id));
      return open.length > 0 ? open.reduce((a, b) => ((b.assignedEpoch ?? 0) > (a.assignedEpoch ?? 0) ? b : a)) : undefined;
    },
    30_000,
    20,
  );
  const claim = { validator: node.services.compute.intake.validator, executionTimeMs: 7, flops: 123_456_789n };
  const { id, outputHash, signature } = prove(task, claim);
  const proof: QueuedProof = {
    id,
    taskId: task.id,
    validator: claim.validator,
    miner,
    publicKey: compute.miner(miner)!.publicKey,
    modelId: task.modelId,
    inputHash: task.inputHash,
    outputHash,
    quantized: `0x${Buffer.alloc(compute.modelDims(task.modelId)!, 3).toString('hex')}`,
    executionTimeMs: claim.executionTimeMs,
    flops: claim.flops,
    claimedFlops: claim.flops,
    signature,
  };
  compute.queueProof(proof);
  await waitFor('the proof in a block', async () => {
    const p = compute.proof(id);
    return p !== undefined && node.services.chain.head().number >= p.includedAt ? true : undefined;
  }, 30_000, 20);
  return { task, proof };
}
