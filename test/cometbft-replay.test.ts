// svc-node replay of a CometBFT chain: a 4-validator network with 100 ms blocks runs past 300
// blocks with a delegation, the proof-of-work miners (on by default) and a validator stopped until
// it is jailed for downtime; then `svc-node replay` rebuilds one node's data dir from its block data
// alone (what CometBFT decided about each block, its last commit and evidence, is stored with it)
// and reaches the state root that node served over eth_getBlockByNumber at every height.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { encodeFunctionData, parseAbi } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { devAccounts } from '../src/chain/dev-accounts.js';
import { rpc as rpcParams, system } from '../src/params.js';
import { decodeMessage } from '../src/modules/kernel/messages.js';
import { core } from '../src/native/index.js';
import { readCometGenesis } from '../src/consensus/cometbft/home.js';
import { cometAppGenesis } from '../src/node.js';
import { rpc, waitFor } from './support/json-rpc.js';
import { SVC_NODE, spawnCli } from './support/cli-process.js';
import { basePortFor, startLocalNetwork, waitForHeight, type LocalNetwork } from './support/testnet.js';

const GWEI = 10n ** 9n;
const TOKEN = 10n ** 18n;
const STAKING = parseAbi(['function delegate(address validator) payable']);
const HEIGHT = 300;

let net: LocalNetwork;
let target: string;
const urls = (): string[] => net.nodes.map((n) => n.url);

before(async () => {
  // Compute: one validator runs a proof-of-work miner thread (tests run nodes without one by default).
  net = await startLocalNetwork({ validators: 4, blockTimeMs: 100, basePort: basePortFor(13), nodeArgs: (i) => (i === 1 ? ['--pow-threads', '1'] : []) });
  target = mkdtempSync(path.join(os.tmpdir(), 'svc-comet-replay-'));
  await waitForHeight(urls(), 2, 60_000);
});

after(async () => {
  await net?.dispose();
  if (target) rmSync(target, { recursive: true, force: true });
});

describe('svc-node replay of a CometBFT chain', () => {
  it('rebuilds a node\'s data dir with staking, compute and a downtime jail, reaching its root at every height', { timeout: 240_000 }, async () => {
    // Staking: a delegation to validator 0 from a wallet.
    const wallet = privateKeyToAccount(devAccounts()[5]!.privateKey);
    const nonce = Number(await rpc<string>(urls()[0]!, 'eth_getTransactionCount', [wallet.address, 'pending']));
    const raw = await wallet.signTransaction({
      chainId: 9000, type: 'eip1559', nonce, to: system.stakingAddress as `0x${string}`, gas: 500_000n, maxFeePerGas: 100n * GWEI, maxPriorityFeePerGas: GWEI,
      data: encodeFunctionData({ abi: STAKING, functionName: 'delegate', args: [net.manifest.nodes[0]!.operator as `0x${string}`] }), value: 100n * TOKEN,
    });
    const hash = await rpc<string>(urls()[1]!, 'eth_sendRawTransaction', [raw]);
    const receipt = await waitFor(`receipt ${hash}`, async () => (await rpc<{ status: string } | null>(urls()[0]!, 'eth_getTransactionReceipt', [hash])) ?? undefined, 30_000);
    assert.equal(receipt.status, '0x1');

    // Slashing: validator 3 stopped until it is jailed for downtime (its blocks go on without it).
    const down = net.manifest.nodes[3]!.operator;
    await net.nodes[3]!.kill();
    const live = urls().slice(0, 3);
    await waitFor('validator 3 jailed', async () => ((await rpc<{ status: string }>(urls()[0]!, 'svc_getValidator', [down])).status === 'jailed' ? true : undefined), 120_000, 250);
    await waitForHeight(live, HEIGHT, 180_000);

    // The validators that kept running were charged only for what the commits say (block 1 charges nobody).
    const stillUp = await rpc<{ blocksMissed: string }>(urls()[0]!, 'svc_getValidator', [net.manifest.nodes[0]!.operator]);
    assert.ok(Number(stillUp.blocksMissed) < 20, `validator 0 missed ${Number(stillUp.blocksMissed)} blocks`);

    const node = net.nodes[0]!;
    await node.stop();

    // The stopped node's served roots, read back from its data dir as eth_getBlockByNumber answered them.
    const source = core.Chain.open(node.dataDir, cometAppGenesis(readCometGenesis(path.join(net.dir, net.manifest.nodes[0]!.cometbftHome)), 9000).spec, { rpcGasCap: rpcParams.gasCap, stateHistory: 0 });
    const roots: string[] = [];
    const modules = new Map<string, number>();
    let last: number;
    try {
      last = source.head().number;
      for (let h = 1; h <= last; h++) {
        const inputs = source.getBlockInputs(h)!;
        roots[h] = `0x${inputs.head.stateRoot.toString('hex')}`;
        for (const m of inputs.messages) {
          const { module, kind } = decodeMessage(m);
          modules.set(`${module}/${kind}`, (modules.get(`${module}/${kind}`) ?? 0) + 1);
        }
      }
    } finally {
      source.close();
    }
    assert.ok(last >= HEIGHT, `head ${last}`);
    // Every block carries its last commit; compute: the pow miners' messages are in the blocks.
    assert.equal(modules.get('staking/commit'), last);
    assert.ok([...modules.keys()].some((k) => k.startsWith('compute/')), `messages ${JSON.stringify([...modules])}`);
    // A running node agrees with those roots over JSON-RPC.
    for (let h = 1; h <= last; h += 1) {
      const block = await rpc<{ stateRoot: string } | null>(urls()[1]!, 'eth_getBlockByNumber', [`0x${h.toString(16)}`, false]);
      assert.equal(block?.stateRoot, roots[h], `node 1's root at height ${h}`);
    }

    const to = path.join(target, 'data');
    const cli = spawnCli(SVC_NODE, ['replay', '--from', node.dataDir, '--to', to, '--cometbft-home', path.join(net.dir, net.manifest.nodes[0]!.cometbftHome), '--log-level', 'warn']);
    const code = await cli.exit;
    assert.equal(code, 0, `svc-node replay failed: ${cli.stderr()}${cli.stdout()}`);
    assert.match(cli.stdout(), new RegExp(`replayed ${last} blocks`));

    const replayed = core.Chain.open(to, cometAppGenesis(readCometGenesis(path.join(net.dir, net.manifest.nodes[0]!.cometbftHome)), 9000).spec, { rpcGasCap: rpcParams.gasCap, stateHistory: 0 });
    try {
      assert.equal(replayed.head().number, last);
      for (let h = 1; h <= last; h++) assert.equal(`0x${replayed.getBlockInputs(h)!.head.stateRoot.toString('hex')}`, roots[h], `replayed root at height ${h}`);
    } finally {
      replayed.close();
    }
  });
});
