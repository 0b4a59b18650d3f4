// Storage slot counts through a running node (what the rent rules will read): kept by the native
// store as blocks change storage, listed per block for the accounts whose count it changed, and
// the same in a chain rebuilt from block data alone (svc-node replay).
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { pino } from 'pino';
import { createPublicClient, createWalletClient, http, parseAbi, type Address, type Hex, type Chain as ViemChain, type PrivateKeyAccount, type PublicClient, type Transport, type WalletClient } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { devGenesis, devGenesisValidators } from '../src/chain/genesis.js';
import { replayChain } from '../src/chain/replay.js';
import { core } from '../src/native/index.js';
import { startNode, type RunningNode } from '../src/node.js';
import { rpc as rpcParams } from '../src/params.js';
import { DEV_CHAIN_ID, devPrivateKeys } from './support/dev-accounts.js';
import { devnetConfig } from './support/node-config.js';
import { repoRoot } from './support/repo.js';
import { svcDevnet } from './support/viem-chain.js';

describe('storage slot counts', { timeout: 120_000 }, () => {
  let node: RunningNode;
  let dataDir: string;
  let client: PublicClient<Transport, ViemChain>;
  let wallet: WalletClient<Transport, ViemChain, PrivateKeyAccount>;
  let contract: Address;
  // The engine tests' Slots contract (crates/svc-evm/tests/fixtures/Slots.sol), as its build left it.
  const fixture = JSON.parse(readFileSync(path.join(repoRoot(), 'crates/svc-evm/tests/fixtures/Slots.json'), 'utf8')) as { bytecode: string };
  const artifact = {
    abi: parseAbi(['function set(uint256 start, uint256 n, uint256 value)']),
    bytecode: (fixture.bytecode.startsWith('0x') ? fixture.bytecode : `0x${fixture.bytecode}`) as Hex,
  };
  const dirs: string[] = [];
  const count = (a: Address) => node.services.chain.storageSlotCount(Buffer.from(a.slice(2), 'hex'));
  const set = async (start: bigint, n: bigint, value: bigint) => {
    const hash = await wallet.writeContract({ address: contract, abi: artifact.abi, functionName: 'set', args: [start, n, value], gas: 5_000_000n });
    const receipt = await client.waitForTransactionReceipt({ hash });
    assert.equal(receipt.status, 'success');
    return Number(receipt.blockNumber);
  };

  before(async () => {
    dataDir = mkdtempSync(path.join(tmpdir(), 'svc-slots-'));
    dirs.push(dataDir);
    node = await startNode(devnetConfig(dataDir, { blockTimeMs: 200 }));
    client = createPublicClient({ chain: svcDevnet(node.rpcUrl), transport: http(node.rpcUrl), pollingInterval: 50 });
    wallet = createWalletClient({ account: privateKeyToAccount(devPrivateKeys(4)[3]!), chain: svcDevnet(node.rpcUrl), transport: http(node.rpcUrl), pollingInterval: 50 });
    const hash = await wallet.deployContract({ abi: artifact.abi, bytecode: artifact.bytecode });
    contract = (await client.waitForTransactionReceipt({ hash })).contractAddress!;
  });

  after(async () => {
    await node?.stop();
    for (const d of dirs) rmSync(d, { recursive: true, force: true });
  });

  it('counts slots set and cleared, and lists the block’s changes', async () => {
    assert.equal(count(contract), 0);
    const b1 = await set(0n, 100n, 7n);
    assert.equal(count(contract), 100);
    const changes = node.services.chain.blockSlotChanges(b1).map((c) => ({ address: `0x${c.address.toString('hex')}`, count: c.count }));
    assert.ok(changes.some((c) => c.address === contract.toLowerCase() && c.count === 100), JSON.stringify(changes));
    await set(0n, 30n, 0n);
    await set(50n, 10n, 9n);
    assert.equal(count(contract), 70, 'overwriting set slots counts nothing');
    const b4 = await set(1_000n, 5n, 1n);
    assert.equal(count(contract), 75);
    assert.deepEqual(node.services.chain.blockSlotChanges(b4).filter((c) => c.address.equals(Buffer.from(contract.slice(2), 'hex'))).map((c) => c.count), [75]);
  });

  it('gives the same counts in a chain replayed from block data', async () => {
    const head = Number(await client.getBlockNumber());
    await node.stop();
    const to = path.join(mkdtempSync(path.join(tmpdir(), 'svc-slots-replay-')), 'chain');
    dirs.push(path.dirname(to));
    const genesis = { spec: devGenesis('devnet'), validators: devGenesisValidators() };
    const result = await replayChain({ from: dataDir, to, genesis, chainId: DEV_CHAIN_ID, log: pino({ level: 'silent' }) });
    assert.ok(result.blocks >= head);
    const copy = core.Chain.open(to, genesis.spec, { rpcGasCap: rpcParams.gasCap, stateHistory: 0 });
    try {
      assert.equal(copy.storageSlotCount(Buffer.from(contract.slice(2), 'hex')), 75);
    } finally {
      copy.close();
    }
  });
});
