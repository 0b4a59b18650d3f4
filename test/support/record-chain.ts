// Records the chain that test/recorded-chain.test.ts replays (test/fixtures/recorded-chain/).
// Re-runnable: `npx tsc -p tsconfig.json && node dist/test/support/record-chain.js` regenerates the
// fixture (a new chain: other hashes and roots, which the test then expects). Regenerate it only
// when a consensus rule is meant to change; a refactor must replay the recorded chain as it is.
//
// A solo devnet node (200 ms blocks, 10-block epochs, the short periods of recorded-chain.ts) with a
// Hardhat node as the bridge's external chain, on which every module acts:
//   evm: transfers, a contract deployed and called;
//   staking: a second validator registered, missing its blocks until downtime jails it, and
//     unjailed; a delegation, an undelegation withdrawn after the unbonding period, rewards
//     claimed, a commission change;
//   compute: proof-of-work shares (one search thread), an inference miner registered and kept
//     registered, its challenge tasks and a signed proof included, a public task paid by a transaction;
//   governance: a parameter change and a two-part treasury spend deposited, voted, passed and carried out;
//   bridge: an ETH deposit attested and minted, a withdrawal burned, released there and its release attested;
//   rent: a contract with 100 unpaid slots gone dormant, then reactivated;
// and epoch boundaries throughout.
import { copyFileSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import {
  createPublicClient,
  createWalletClient,
  encodeFunctionData,
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
import { ed25519 } from '@noble/curves/ed25519.js';
import { BRIDGE_ABI } from '../../src/modules/bridge/index.js';
import { COMPUTE_ABI } from '../../src/modules/compute/module.js';
import type { Address as ModuleAddress } from '../../src/modules/compute/types.js';
import { proofMessage } from '../../src/modules/compute/wire.js';
import { STAKING_ABI } from '../../src/modules/staking/module.js';
import { deriveKeys, generateWallet, parseSeed, signRegistration, type MinerKeys } from '../../src/miner/wallet.js';
import { decodeMessage } from '../../src/modules/kernel/messages.js';
import { core } from '../../src/native/index.js';
import { startNode, type RunningNode } from '../../src/node.js';
import { rpc as rpcParams, system } from '../../src/params.js';
import { devPrivateKeys } from './dev-accounts.js';
import { startHardhat, type HardhatPeer } from './hardhat.js';
import { rpc, waitFor } from './json-rpc.js';
import { bridgeRoundTrip, CONFIRMATIONS, deployExternalBridge, EXTERNAL_CHAIN_ID, queueChallengeProof } from './module-activity.js';
import { devnetConfig } from './node-config.js';
import { ARCHIVE, CHAIN, COMPUTE, EXPECTED, fixtureDir, GOVERNANCE, pack, RENT, recordedGenesis, STAKING, type Expected } from './recorded-chain.js';
import { repoRoot } from './repo.js';
import { compileContracts } from './solc.js';
import { svcDevnet } from './viem-chain.js';

const GOV_ABI = JSON.parse(readFileSync(path.join(repoRoot(), 'abi', 'governance.json'), 'utf8')) as Abi;
const RENT_ABI = JSON.parse(readFileSync(path.join(repoRoot(), 'abi', 'rent.json'), 'utf8')) as Abi;
const GOV = system.governanceAddress as Address;
const BRIDGE = system.bridgeAddress as Address;
const STAKE = system.stakingAddress as Address;
const ETHER = 10n ** 18n;
const ETH_TOKEN = getAddress('0x0000000000000000000000000000000000000000');
const SMALL = 'svc-embed-small@v1.0';
const hex = (b: Uint8Array): Hex => `0x${Buffer.from(b).toString('hex')}`;
const bytes = (h: string): Buffer => Buffer.from(h.slice(2), 'hex');

async function record(dataDir: string): Promise<Expected['bridge']> {
  const keys = devPrivateKeys(8);
  const [validator, proposer, depositor, alice, bob, user, absentee, deployer] = keys.map((k) => privateKeyToAccount(k)) as PrivateKeyAccount[] as [
    PrivateKeyAccount, PrivateKeyAccount, PrivateKeyAccount, PrivateKeyAccount, PrivateKeyAccount, PrivateKeyAccount, PrivateKeyAccount, PrivateKeyAccount,
  ];
  const hardhat: HardhatPeer = await startHardhat({ chainId: EXTERNAL_CHAIN_ID });
  let node: RunningNode | undefined;
  let heartbeat: NodeJS.Timeout | undefined;
  try {
    const external = await deployExternalBridge(hardhat, user, validator.address);
    const bridgeContract = external.contract;

    node = await startNode(
      devnetConfig(dataDir, { blockTimeMs: 200, powThreads: 1, bridgeRpc: hardhat.url, bridgeContract: bridgeContract.toLowerCase(), bridgeConfirmations: CONFIRMATIONS, bridgeRelay: true }),
      { stakingParams: STAKING, governanceParams: GOVERNANCE, rentParams: RENT, computeParams: COMPUTE },
    );
    const running = node;
    const rpcUrl = running.rpcUrl;
    const svc = createPublicClient({ chain: svcDevnet(rpcUrl), transport: http(rpcUrl), pollingInterval: 50 }) as PublicClient;
    const wallet = (account: PrivateKeyAccount) => createWalletClient({ account, chain: svcDevnet(rpcUrl), transport: http(rpcUrl), pollingInterval: 50 });
    const receipt = (hash: Hash) => svc.waitForTransactionReceipt({ hash, pollingInterval: 50 });
    const mined = async (hash: Hash) => {
      const r = await receipt(hash);
      if (r.status !== 'success') throw new Error(`${hash} failed`);
      return r;
    };
    const call = async (from: PrivateKeyAccount, address: Address, abi: Abi, functionName: string, args: unknown[], value = 0n) =>
      mined(await wallet(from).writeContract({ address, abi, functionName, args, value, gas: 1_000_000n } as never));
    const height = () => running.services.chain.head().number;
    const epochsLater = async (what: string, epochs: number) => {
      const until = height() + epochs * STAKING.epochLengthBlocks;
      await waitFor(what, async () => (height() >= until ? true : undefined), 60_000, 50);
    };

    // Compute: an inference miner registered and kept registered (as svc-miner does); shares come from the search thread.
    const minerKeys: MinerKeys = deriveKeys(parseSeed(generateWallet().privateKey));
    const minerWallet = minerKeys.address.toLowerCase() as ModuleAddress;
    let sequence = 1;
    const register = async () => rpc(rpcUrl, 'svc_registerMiner', [await signRegistration(minerKeys, CHAIN, 'Cold', [SMALL], sequence++)]);
    await register();
    heartbeat = setInterval(() => void register().catch(() => undefined), 1000);

    // EVM: transfers and a contract deployed with 100 storage slots and no deposit (rent's dormant account below).
    await mined(await wallet(alice).sendTransaction({ to: bob.address, value: parseEther('1.5') }));
    await mined(await wallet(bob).sendTransaction({ to: alice.address, value: 12_345n }));
    const target = compileContracts('RentTarget.sol').RentTarget!;
    const dormant = (await mined(await wallet(deployer).deployContract({ abi: target.abi, bytecode: target.bytecode }))).contractAddress! as Address;
    await mined(await wallet(deployer).sendTransaction({ to: dormant, value: 5n }));
    await mined(await wallet(deployer).sendTransaction({ to: dormant, data: encodeFunctionData({ abi: target.abi, functionName: 'set', args: [0n, 100n, 7n] }), gas: 6_000_000n }));

    // Staking: a second validator that never signs here; a delegation to the genesis validator and part of it undelegated.
    const genesisValidator = validator.address.toLowerCase() as Hex;
    await call(absentee, STAKE, STAKING_ABI, 'registerValidator', ['absentee', 1_000, 2_000, 500], parseEther('50'));
    await call(alice, STAKE, STAKING_ABI, 'delegate', [genesisValidator], parseEther('30'));
    await call(bob, STAKE, STAKING_ABI, 'delegate', [absentee.address.toLowerCase()], parseEther('2'));
    await call(alice, STAKE, STAKING_ABI, 'undelegate', [genesisValidator, parseEther('10')]);
    // The genesis validator's commission from 10% to 11% (its daily limit is one point).
    await call(validator, STAKE, STAKING_ABI, 'editCommission', [1_100]);
    // Compute: a public task paid by a transaction.
    await call(bob, system.computeAddress as Address, COMPUTE_ABI, 'submitTask', [SMALL, 'the recorded chain'], COMPUTE.publicTaskMinFee);

    // Governance: a parameter change and a two-part treasury spend; the validator votes for both (before the bridge agent sends from its account).
    const submitted = (logs: Parameters<typeof parseEventLogs>[0]['logs']) => {
      const [e] = parseEventLogs({ abi: GOV_ABI, logs, eventName: 'ProposalSubmitted' });
      if (!e) throw new Error('no ProposalSubmitted log');
      return BigInt((e.args as { proposalId: bigint }).proposalId);
    };
    const change = submitted((await call(proposer, GOV, GOV_ABI, 'submitParameterChange', ['Shorter retirement grace', 'Miners need 50 blocks to finish.', ['governance.modelRetirementGraceBlocks'], [50n]])).logs);
    await call(depositor, GOV, GOV_ABI, 'deposit', [change], 10n * ETHER);
    const spend = submitted((await call(proposer, GOV, GOV_ABI, 'submitTreasurySpend', ['Audit', 'Pay the auditors in two parts.', getAddress(`0x${'5e'.repeat(20)}`), ETHER / 2n, 2], 10n * ETHER)).logs);
    await call(validator, GOV, GOV_ABI, 'vote', [change, 1]);
    await call(validator, GOV, GOV_ABI, 'vote', [spend, 1]);

    // Bridge: an ETH deposit there, minted here once confirmed; a withdrawal burned here, released there and attested.
    const externalRecipient = getAddress('0x00000000000000000000000000000000000e7701');
    const withdrawal = parseEther('0.4');
    await bridgeRoundTrip(external, rpcUrl, {
      deposit: parseEther('1'),
      withdrawal,
      recipient: externalRecipient,
      withdraw: () => call(user, BRIDGE, BRIDGE_ABI as Abi, 'withdraw', [ETH_TOKEN, externalRecipient, withdrawal], withdrawal),
    });

    // Compute: a proof of the miner's newest challenge task, signed by its key, queued as the intake queues a checked one.
    const proofId = hex(Buffer.alloc(32, 0x07));
    await queueChallengeProof(running, minerWallet, (task, claim) => {
      const outputHash = hex(Buffer.alloc(32, 0x42));
      const message = proofMessage({
        chainId: CHAIN,
        taskId: bytes(task.id),
        validator: bytes(claim.validator),
        miner: bytes(minerWallet),
        modelId: task.modelId,
        inputHash: bytes(task.inputHash),
        outputHash: bytes(outputHash),
        executionTimeMs: claim.executionTimeMs,
        flops: claim.flops,
      });
      return { id: proofId, outputHash, signature: hex(ed25519.sign(message, minerKeys.seed)) };
    });

    // Staking: the undelegation withdrawn after the unbonding period, rewards claimed.
    await new Promise((r) => setTimeout(r, STAKING.unbondingPeriodSeconds * 1000 + 500));
    await call(alice, STAKE, STAKING_ABI, 'withdraw', []);
    await call(alice, STAKE, STAKING_ABI, 'claimRewards', [genesisValidator]);

    // Rent: dormant three idle epochs after its rent passed the limit, then reactivated by another account.
    const rentInfo = () => rpc<{ isDormant: boolean; rentOwed: string }>(rpcUrl, 'svc_getAccountRentInfo', [dormant]);
    await waitFor('dormancy', async () => ((await rentInfo()).isDormant ? true : undefined), 60_000, 50);
    const owed = BigInt((await rentInfo()).rentOwed);
    await call(bob, system.rentAddress as Address, RENT_ABI, 'reactivate', [dormant], RENT.reactivationFee + owed + 10n ** 15n);

    // Staking: the absentee jailed for downtime, then unjailed once its jail time is over.
    await waitFor('the absentee jailed', async () => ((await rpc<{ status: string }>(rpcUrl, 'svc_getValidator', [absentee.address])).status === 'jailed' ? true : undefined), 60_000, 50);
    await new Promise((r) => setTimeout(r, STAKING.downtimeJailSeconds * 1000 + 500));
    await call(absentee, STAKE, STAKING_ABI, 'unjail', []);

    // Governance: both proposals carried out.
    await waitFor('the spend paid', async () => ((await rpc<{ spendsPaid: number }>(rpcUrl, 'svc_getTreasuryInfo')).spendsPaid === 1 ? true : undefined), 60_000, 100);
    clearInterval(heartbeat);
    heartbeat = undefined;
    // A last transfer and two more epochs.
    await mined(await wallet(bob).sendTransaction({ to: alice.address, value: 1n }));
    await epochsLater('two more epochs', 2);
    return { chainId: EXTERNAL_CHAIN_ID, contract: bridgeContract.toLowerCase() as Hex, confirmations: CONFIRMATIONS, fromBlock: 0 };
  } finally {
    if (heartbeat) clearInterval(heartbeat);
    await node?.stop();
    await hardhat.stop();
  }
}

const work = mkdtempSync(path.join(os.tmpdir(), 'svc-record-chain-'));
try {
  const dataDir = path.join(work, 'data');
  const bridge = await record(dataDir);
  // Only the chain database: replay reads nothing else (not the pool journal, nor the explorer's index and secrets).
  const chainDb = path.join(work, 'chain');
  mkdirSync(chainDb);
  // The database's own files (its write-ahead log and tables, manifest and options); not its lock and info log.
  const kept = readdirSync(dataDir).filter((name) => /^(CURRENT|MANIFEST-\d+|OPTIONS-\d+|\d+\.(log|sst|blob))$/.test(name));
  for (const name of kept) copyFileSync(path.join(dataDir, name), path.join(chainDb, name));

  const chain = core.Chain.open(chainDb, recordedGenesis(bridge).spec, { rpcGasCap: rpcParams.gasCap, stateHistory: 0 });
  const blocks: Expected['blocks'] = [];
  const contents: Record<string, number> = { transactions: 0 };
  try {
    const head = chain.head().number;
    for (let h = 1; h <= head; h++) {
      const inputs = chain.getBlockInputs(h)!;
      blocks.push({ height: h, hash: hex(inputs.head.hash), stateRoot: hex(inputs.head.stateRoot) });
      contents.transactions! += inputs.txs.length;
      for (const m of inputs.messages) {
        const { module, kind } = decodeMessage(m);
        contents[`${module} ${kind}`] = (contents[`${module} ${kind}`] ?? 0) + 1;
      }
    }
  } finally {
    chain.close();
  }
  const expected: Expected = {
    activity: [
      'evm: transfers; a contract deployed, paid and 100 storage slots written',
      'staking: a validator registered, jailed for downtime and unjailed; delegations, an undelegation withdrawn, rewards claimed, a commission change',
      'compute: proof-of-work shares; an inference miner registered, its challenge tasks and a signed proof; a public task',
      'governance: a parameter change and a two-part treasury spend, deposited, voted, passed and carried out',
      'bridge: an ETH deposit attested and minted; a withdrawal burned, released and its release attested',
      'rent: the contract gone dormant and reactivated',
      `epochs of ${STAKING.epochLengthBlocks} blocks`,
    ],
    contents,
    bridge,
    blocks,
  };
  const out = fixtureDir();
  mkdirSync(out, { recursive: true });
  const archive = pack(chainDb);
  writeFileSync(path.join(out, ARCHIVE), archive);
  writeFileSync(path.join(out, EXPECTED), JSON.stringify(expected, null, 1) + '\n');
  process.stdout.write(`${JSON.stringify(contents)}\nrecorded ${blocks.length} blocks into ${out} (${archive.length} bytes packed)\n`);
} finally {
  rmSync(work, { recursive: true, force: true });
}
