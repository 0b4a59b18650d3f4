// A testnet holds no public key: real `svc-node start --network testnet` processes. The coinbase and
// genesis validator come from --validator-address, the faucet signs only with the operator's key
// (a key file or SVC_FAUCET_PRIVATE_KEY) and serves nothing without one, no account of the public
// test mnemonic has a balance, and neither the banner nor the logs ever show the faucet's key.
import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { getAddress } from 'viem';
import { generatePrivateKey, mnemonicToAccount, privateKeyToAccount } from 'viem/accounts';
import { chain as chainParams, faucet as faucetParams } from '../src/params.js';
import { SVC_NODE, spawnCli } from './support/cli-process.js';
import { JsonRpcError, rpc, waitFor } from './support/json-rpc.js';
import { NodeProcess } from './support/node-process.js';

const EXIT_TIMEOUT_MS = 30_000;
const VALIDATOR = getAddress('0x00000000000000000000000000000000000a11ce');
/** The 20 accounts Hardhat prints of the public mnemonic (anvil: the first 10) and index 100, the old testnet faucet. */
const PUBLIC = [...Array.from({ length: 20 }, (_, i) => i), faucetParams.derivationIndex].map((index) => {
  const account = mnemonicToAccount(chainParams.devMnemonic, { addressIndex: index });
  return { index, address: account.address, key: Buffer.from(account.getHdKey().privateKey!).toString('hex') };
});

const work = mkdtempSync(path.join(os.tmpdir(), 'svc-testnet-'));
after(() => rmSync(work, { recursive: true, force: true }));

/** Flags of a testnet node on free ports in its own data dir. */
function testnetArgs(name: string, extra: string[] = []): string[] {
  return ['start', '--network', 'testnet', '--data-dir', path.join(work, name), '--rpc-port', '0', '--ws-port', '0', '--explorer-port', '0', '--pow-threads', '0', ...extra];
}

/** Runs svc-node until it exits (code null when it was still running after the timeout and was killed). */
async function runToExit(args: string[], env: Record<string, string> = {}): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const cli = spawnCli(SVC_NODE, args, env);
  const timer = setTimeout(() => cli.child.kill('SIGKILL'), EXIT_TIMEOUT_MS);
  const code = await cli.exit;
  clearTimeout(timer);
  return { code, stdout: cli.stdout(), stderr: cli.stderr() };
}

/** A testnet node (trace logs, so that every log line a key could slip into is written). */
function startTestnet(extraArgs: string[], env: Record<string, string>): Promise<NodeProcess> {
  return NodeProcess.start({
    blockTimeMs: 100,
    logLevel: 'trace',
    // No key from the environment of whoever runs the tests unless the test gives one.
    env: { SVC_FAUCET_PRIVATE_KEY: '', SVC_BUNDLER_PRIVATE_KEY: '', ...env },
    extraArgs: ['--network', 'testnet', '--rpc-rate-limit', '0', ...extraArgs],
  });
}

/** Balance of `address` at block 0x0 (the genesis allocation). */
async function genesisBalance(url: string, address: string): Promise<bigint> {
  return BigInt(await rpc<string>(url, 'eth_getBalance', [address, '0x0']));
}

/** Asks the faucet for `to` and waits until the transfer is mined. */
async function useFaucet(url: string, to: string): Promise<void> {
  const sent = await rpc<{ transactionHash: string; amount: string; to: string }>(url, 'svc_requestFaucet', [to]);
  assert.equal(BigInt(sent.amount), faucetParams.amount);
  const receipt = await waitFor('the faucet transfer', () =>
    rpc<{ status: string } | null>(url, 'eth_getTransactionReceipt', [sent.transactionHash]).then((r) => r ?? undefined),
  );
  assert.equal(receipt.status, '0x1');
  assert.equal(BigInt(await rpc<string>(url, 'eth_getBalance', [to, 'latest'])), faucetParams.amount);
}

/** Neither form of the key (with or without 0x, any case) appears in what the node printed. */
function assertKeyNeverPrinted(output: string, key: string): void {
  const bare = key.replace(/^0x/, '').toLowerCase();
  assert.ok(output.length > 0);
  assert.equal(output.toLowerCase().includes(bare), false, 'the faucet key appears in the banner or the logs');
}

describe('testnet: the coinbase and validator come from configuration', () => {
  it('refuses to start without --validator-address, naming the flag (exit 2)', async () => {
    const out = await runToExit(testnetArgs('no-validator'));
    assert.equal(out.code, 2, `exit code ${out.code}\n${out.stderr}`);
    assert.match(out.stderr, /testnet needs the validator address: pass --validator-address <0x…> \(or SVC_VALIDATOR_ADDRESS\)/);
  });

  it('refuses a public test-mnemonic account as validator address (exit 2)', async () => {
    const out = await runToExit(testnetArgs('public-validator', ['--validator-address', PUBLIC[0]!.address]));
    assert.equal(out.code, 2, `exit code ${out.code}\n${out.stderr}`);
    assert.match(out.stderr, /--validator-address 0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266: account 0 of the public test mnemonic/);
  });
});

describe('testnet without a faucet key', () => {
  let node: NodeProcess;
  after(() => node?.dispose());

  it('starts with the configured coinbase, funds no public account, prints no key and refuses the faucet (-32004)', async () => {
    node = await startTestnet(['--validator-address', VALIDATOR], {});
    for (const { index, address } of PUBLIC) {
      assert.equal(await genesisBalance(node.url, address), 0n, `public account ${index} has a genesis balance`);
      assert.equal(BigInt(await rpc<string>(node.url, 'eth_getBalance', [address, 'latest'])), 0n, `public account ${index} has a balance`);
    }
    await assert.rejects(
      rpc(node.url, 'svc_requestFaucet', ['0x00000000000000000000000000000000000f0001']),
      (err: unknown) =>
        err instanceof JsonRpcError &&
        err.code === -32004 &&
        /this testnet node has no faucet key: its operator starts it with --faucet-key-file <file> or SVC_FAUCET_PRIVATE_KEY/.test(err.message),
    );

    // No bundler key either: the EntryPoints are listed, operations refused with the flag to set.
    assert.deepEqual(await rpc(node.url, 'svc_supportedEntryPoints'), ['0x5FF137D4b0FDCD49DcA30c7CF57E578a026d2789', '0x0000000071727De22E5E9d8BAf0edAc6f37da032']);
    const op = {
      sender: VALIDATOR,
      nonce: '0x0',
      initCode: '0x',
      callData: '0x',
      callGasLimit: '0x186a0',
      verificationGasLimit: '0x186a0',
      preVerificationGas: '0xc350',
      maxFeePerGas: '0x77359400',
      maxPriorityFeePerGas: '0x3b9aca00',
      paymasterAndData: '0x',
      signature: '0x',
    };
    await assert.rejects(
      rpc(node.url, 'svc_sendUserOperation', [op]),
      (err: unknown) => err instanceof JsonRpcError && err.code === -32004 && /no bundler key: .*--bundler-key-file <file> or SVC_BUNDLER_PRIVATE_KEY/.test(err.message),
    );

    const info = await rpc<{ validatorAddress: string; network: string }>(node.url, 'svc_getNodeInfo');
    assert.equal(info.network, 'testnet');
    assert.equal(info.validatorAddress, VALIDATOR);
    assert.equal(await genesisBalance(node.url, VALIDATOR), chainParams.testnetValidatorBalance);
    const banner = node.logs();
    assert.match(banner, new RegExp(`Coinbase +${VALIDATOR}`));
    assert.match(banner, /Faucet +disabled \(this testnet node has no faucet key/);
    assert.match(banner, /Bundler +disabled \(this node has no bundler key/);
    assert.doesNotMatch(banner, /Private Keys|Mnemonic/);
    for (const { key } of PUBLIC) assertKeyNeverPrinted(banner, key);
  });
});

describe('testnet with the operator\'s faucet key', () => {
  const nodes: NodeProcess[] = [];
  after(async () => {
    for (const n of nodes) await n.dispose();
  });

  it('from a key file: funds the key\'s address at genesis, serves the faucet, never prints the key', async () => {
    const key = generatePrivateKey();
    const faucet = privateKeyToAccount(key).address;
    const file = path.join(work, 'faucet.key');
    writeFileSync(file, `${key}\n`, { mode: 0o600 });
    const node = await startTestnet(['--validator-address', VALIDATOR, '--faucet-key-file', file], {});
    nodes.push(node);
    assert.equal(await genesisBalance(node.url, faucet), faucetParams.genesisBalance);
    assert.match(node.logs(), new RegExp(`Faucet +${faucet}`));
    assertKeyNeverPrinted(node.logs(), key);
    await useFaucet(node.url, '0x00000000000000000000000000000000000f0002');
    for (const { index, address } of PUBLIC) assert.equal(await genesisBalance(node.url, address), 0n, `public account ${index}`);
    await node.stop();
    assertKeyNeverPrinted(node.logs(), key);
  });

  it('from SVC_FAUCET_PRIVATE_KEY: the same, and --faucet-address naming the key\'s address builds the same genesis', async () => {
    const key = generatePrivateKey();
    const faucet = privateKeyToAccount(key).address;
    // The bundler's key the same way: named in the banner by its address only.
    const bundlerKey = generatePrivateKey();
    const node = await startTestnet(['--validator-address', VALIDATOR], { SVC_FAUCET_PRIVATE_KEY: key.slice(2), SVC_BUNDLER_PRIVATE_KEY: bundlerKey });
    nodes.push(node);
    assert.equal(await genesisBalance(node.url, faucet), faucetParams.genesisBalance);
    await useFaucet(node.url, '0x00000000000000000000000000000000000f0003');
    const genesis = await rpc<{ hash: string }>(node.url, 'eth_getBlockByNumber', ['0x0', false]);
    await node.stop();
    assertKeyNeverPrinted(node.logs(), key);
    assertKeyNeverPrinted(node.logs(), bundlerKey);
    assert.match(node.logs(), new RegExp(`Bundler +${privateKeyToAccount(bundlerKey).address} \\(ERC-4337`));

    // Another node of the same testnet, without the key: the same genesis, and no faucet.
    const peer = await startTestnet(['--validator-address', VALIDATOR, '--faucet-address', faucet], {});
    nodes.push(peer);
    assert.equal((await rpc<{ hash: string }>(peer.url, 'eth_getBlockByNumber', ['0x0', false])).hash, genesis.hash);
    await assert.rejects(rpc(peer.url, 'svc_requestFaucet', ['0x00000000000000000000000000000000000f0004']), { code: -32004 });
  });
});

describe('testnet faucet settings that cannot be used exit 2 without quoting the key', () => {
  const key = generatePrivateKey();
  const file = path.join(work, 'bad.key');
  const cases: [string, () => string[], Record<string, string>, RegExp][] = [
    [
      'a key file that holds no key',
      () => (writeFileSync(file, `${key.slice(0, 40)}zz\n`), testnetArgs('bad-file', ['--validator-address', VALIDATOR, '--faucet-key-file', file])),
      {},
      /faucet key file .*bad\.key: expected a secp256k1 private key, 64 hex digits with or without 0x/,
    ],
    [
      'a key file that does not exist',
      () => testnetArgs('no-file', ['--validator-address', VALIDATOR, '--faucet-key-file', path.join(work, 'absent.key')]),
      {},
      /faucet key file .*absent\.key: cannot read it \(ENOENT\)/,
    ],
    [
      'a malformed SVC_FAUCET_PRIVATE_KEY',
      () => testnetArgs('bad-env', ['--validator-address', VALIDATOR]),
      { SVC_FAUCET_PRIVATE_KEY: `${key}00` },
      /SVC_FAUCET_PRIVATE_KEY: expected a secp256k1 private key/,
    ],
    [
      'a key in both the file and the variable',
      () => (writeFileSync(file, key), testnetArgs('both', ['--validator-address', VALIDATOR, '--faucet-key-file', file])),
      { SVC_FAUCET_PRIVATE_KEY: key },
      /give the faucet key once: --faucet-key-file \(SVC_FAUCET_KEY_FILE\) or SVC_FAUCET_PRIVATE_KEY, not both/,
    ],
    [
      'the public key of the old testnet faucet (index 100)',
      () => testnetArgs('public-faucet', ['--validator-address', VALIDATOR]),
      { SVC_FAUCET_PRIVATE_KEY: PUBLIC.at(-1)!.key },
      /the faucet key's address 0x[0-9a-fA-F]{40}: account 100 of the public test mnemonic/,
    ],
    [
      'the public key of the devnet bundler (index 101) as the bundler key',
      () => testnetArgs('public-bundler', ['--validator-address', VALIDATOR]),
      { SVC_BUNDLER_PRIVATE_KEY: mnemonicToAccount(chainParams.devMnemonic, { addressIndex: 101 }).getHdKey().privateKey!.reduce((s, b) => s + b.toString(16).padStart(2, '0'), '') },
      /the bundler key's address 0x[0-9a-fA-F]{40}: account 101 of the public test mnemonic/,
    ],
    [
      'a malformed SVC_BUNDLER_PRIVATE_KEY',
      () => testnetArgs('bad-bundler', ['--validator-address', VALIDATOR]),
      { SVC_BUNDLER_PRIVATE_KEY: `${key}00` },
      /SVC_BUNDLER_PRIVATE_KEY: expected a secp256k1 private key/,
    ],
    [
      'a --faucet-address that is not the key\'s',
      () => testnetArgs('mismatch', ['--validator-address', VALIDATOR, '--faucet-address', '0x00000000000000000000000000000000000fa0ce']),
      { SVC_FAUCET_PRIVATE_KEY: key },
      /the faucet key's address 0x[0-9a-fA-F]{40} is not --faucet-address 0x00000000000000000000000000000000000fa0ce/i,
    ],
    [
      'a faucet key on mainnet',
      () => ['start', '--network', 'mainnet', '--data-dir', path.join(work, 'mainnet')],
      { SVC_FAUCET_PRIVATE_KEY: key },
      /mainnet has no faucet/,
    ],
    [
      'a faucet key on devnet',
      () => ['start', '--data-dir', path.join(work, 'devnet'), '--rpc-port', '0', '--ws-port', '0', '--explorer-port', '0'],
      { SVC_FAUCET_PRIVATE_KEY: key },
      /are for testnet: the devnet's faucet is its dev account/,
    ],
  ];
  for (const [what, args, env, message] of cases) {
    it(`refuses ${what}`, async () => {
      const out = await runToExit(args(), env);
      assert.equal(out.code, 2, `exit code ${out.code}\n${out.stderr}`);
      assert.match(out.stderr, message);
      assertKeyNeverPrinted(out.stdout + out.stderr + ' ', key);
    });
  }

  it('lists the faucet flags and variables in start --help', async () => {
    const out = await runToExit(['start', '--help']);
    assert.equal(out.code, 0);
    const help = out.stdout.replace(/\s+/g, ' ');
    for (const word of ['--faucet-key-file', 'SVC_FAUCET_KEY_FILE', 'SVC_FAUCET_PRIVATE_KEY', '--faucet-address', 'SVC_FAUCET_ADDRESS']) {
      assert.ok(help.includes(word), `${word} missing from help`);
    }
  });
});
