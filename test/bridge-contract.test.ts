// The bridge's external-chain contract (contracts/bridge/SvcBridge.sol) on a real external chain (a
// Hardhat node with its own chain id): deposits of ETH and an ERC-20 locked with their events,
// withdrawals released only with signatures of more than 2/3 of the set's power, and the refusals
// that the post-mortems of validator bridges call for: exactly 2/3, a forged signature, a replayed
// withdrawal, a signature made for another contract, a malleable signature, a set update without the
// threshold or with a stale nonce, and the old set signing after a hand-over.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { after, before, describe, it } from 'node:test';
import {
  createPublicClient,
  createWalletClient,
  defineChain,
  encodeAbiParameters,
  getAddress,
  http,
  keccak256,
  parseEther,
  parseEventLogs,
  parseSignature,
  toHex,
  type Address,
  type Hex,
  type PrivateKeyAccount,
  type PublicClient,
  type WalletClient,
  type Transport,
  type Chain,
} from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { svcBridgeAbi, svcBridgeBytecode } from '../src/bridge/contract.generated.js';
import { devPrivateKeys } from './support/dev-accounts.js';
import { startHardhat, type HardhatPeer } from './support/hardhat.js';
import { repoRoot } from './support/repo.js';
import { compileContract } from './support/solc.js';

const EXTERNAL_CHAIN_ID = 31_337;
const SVC_CHAIN_ID = 9000n;
const ERC20 = [
  { type: 'function', name: 'approve', stateMutability: 'nonpayable', inputs: [{ name: 's', type: 'address' }, { name: 'a', type: 'uint256' }], outputs: [{ type: 'bool' }] },
  { type: 'function', name: 'balanceOf', stateMutability: 'view', inputs: [{ name: 'a', type: 'address' }], outputs: [{ type: 'uint256' }] },
] as const;
const SECP256K1_N = 0xfffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141n;

interface Sig {
  v: number;
  r: Hex;
  s: Hex;
}
const NONE: Sig = { v: 0, r: `0x${'00'.repeat(32)}`, s: `0x${'00'.repeat(32)}` };

/** `count` fresh keys, sorted by address (the contract's order). */
function validatorKeys(count: number): PrivateKeyAccount[] {
  return Array.from({ length: count }, () => privateKeyToAccount(generatePrivateKey())).sort((a, b) =>
    BigInt(a.address) < BigInt(b.address) ? -1 : 1,
  );
}

async function sign(account: PrivateKeyAccount, digest: Hex): Promise<Sig> {
  const { r, s, v } = parseSignature(await account.sign({ hash: digest }));
  return { v: Number(v), r, s };
}

/** Signatures aligned with `set`: the members at `signers` sign, the others are empty. */
async function aligned(set: PrivateKeyAccount[], signers: number[], digest: Hex): Promise<Sig[]> {
  return Promise.all(set.map((a, i) => (signers.includes(i) ? sign(a, digest) : NONE)));
}

describe('SvcBridge on an external chain', { timeout: 180_000 }, () => {
  let hardhat: HardhatPeer;
  let publicClient: PublicClient<Transport, Chain>;
  let wallet: WalletClient<Transport, Chain, PrivateKeyAccount>;
  let bridge: Address;
  let token: Address;
  // Powers 33, 33, 22, 11 of 99: two thirds is exactly 66.
  const set = validatorKeys(4);
  const powers = [33n, 33n, 22n, 11n];
  const depositor = privateKeyToAccount(devPrivateKeys(3)[1]!);
  const svcRecipient = getAddress('0x00000000000000000000000000000000005ec001');
  const payee = getAddress('0x0000000000000000000000000000000000b0b001');

  async function mined(hash: Hex) {
    const receipt = await publicClient.waitForTransactionReceipt({ hash });
    assert.equal(receipt.status, 'success');
    return receipt;
  }

  async function reverts(run: () => Promise<unknown>, error: RegExp): Promise<void> {
    await assert.rejects(run, (err: Error) => {
      assert.match(err.message, error);
      return true;
    });
  }

  async function withdrawalDigest(id: bigint, tokenAddress: Address, recipient: Address, amount: bigint): Promise<Hex> {
    return publicClient.readContract({ address: bridge, abi: svcBridgeAbi, functionName: 'withdrawalDigest', args: [id, tokenAddress, recipient, amount] });
  }

  before(async () => {
    hardhat = await startHardhat({ chainId: EXTERNAL_CHAIN_ID });
    const chain = defineChain({
      id: EXTERNAL_CHAIN_ID,
      name: 'external',
      nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 },
      rpcUrls: { default: { http: [hardhat.url] } },
    });
    publicClient = createPublicClient({ chain, transport: http(hardhat.url), pollingInterval: 50 });
    wallet = createWalletClient({ account: privateKeyToAccount(devPrivateKeys(1)[0]!), chain, transport: http(hardhat.url), pollingInterval: 50 });
    const deployed = await mined(
      await wallet.deployContract({ abi: svcBridgeAbi, bytecode: svcBridgeBytecode, args: [SVC_CHAIN_ID, set.map((a) => a.address), powers] }),
    );
    bridge = deployed.contractAddress!;
    const testToken = compileContract('TestToken.sol', 'TestToken');
    token = (await mined(await wallet.deployContract({ abi: testToken.abi, bytecode: testToken.bytecode, args: [10n ** 24n] }))).contractAddress!;
  });

  after(async () => {
    await hardhat?.stop();
  });

  it('is built from its source by scripts/build-bridge.mjs (the committed file is fresh)', () => {
    const run = spawnSync(process.execPath, ['scripts/build-bridge.mjs', '--check'], { cwd: repoRoot(), encoding: 'utf8' });
    assert.equal(run.status, 0, run.stderr);
  });

  it('holds the genesis set, sorted, with its total power; refuses an unsorted or duplicated set', async () => {
    const [validators, held, nonce] = await publicClient.readContract({ address: bridge, abi: svcBridgeAbi, functionName: 'validatorSet' });
    assert.deepEqual(validators, set.map((a) => getAddress(a.address)));
    assert.deepEqual(held, powers);
    assert.equal(nonce, 0n);
    assert.equal(await publicClient.readContract({ address: bridge, abi: svcBridgeAbi, functionName: 'totalPower' }), 99n);
    const reversed = [...set].reverse().map((a) => a.address);
    // InvalidValset("order"), selector 0x1d27fc8b (a deployment's revert is not decoded by the ABI).
    const order = /0x1d27fc8b0{62}200{63}56f72646572/;
    await reverts(() => wallet.deployContract({ abi: svcBridgeAbi, bytecode: svcBridgeBytecode, args: [SVC_CHAIN_ID, reversed, powers] }), order);
    const twice = [set[0]!.address, set[0]!.address];
    await reverts(() => wallet.deployContract({ abi: svcBridgeAbi, bytecode: svcBridgeBytecode, args: [SVC_CHAIN_ID, twice, [1n, 1n]] }), order);
  });

  it('locks ETH and ERC-20 deposits with numbered Deposit events; refuses a zero deposit', async () => {
    const depositorWallet = createWalletClient({ account: depositor, chain: wallet.chain, transport: http(hardhat.url) });
    const eth = await mined(await depositorWallet.writeContract({ address: bridge, abi: svcBridgeAbi, functionName: 'depositETH', args: [svcRecipient], value: parseEther('3') }));
    await mined(await wallet.writeContract({ address: token, abi: [...ERC20, { type: 'function', name: 'transfer', stateMutability: 'nonpayable', inputs: [{ name: 't', type: 'address' }, { name: 'a', type: 'uint256' }], outputs: [{ type: 'bool' }] }], functionName: 'transfer', args: [depositor.address, 5_000n] }));
    await mined(await depositorWallet.writeContract({ address: token, abi: ERC20, functionName: 'approve', args: [bridge, 5_000n] }));
    const erc20 = await mined(await depositorWallet.writeContract({ address: bridge, abi: svcBridgeAbi, functionName: 'depositERC20', args: [token, 5_000n, svcRecipient] }));
    const events = parseEventLogs({ abi: svcBridgeAbi, eventName: 'Deposit', logs: [...eth.logs, ...erc20.logs] });
    assert.deepEqual(
      events.map((e) => e.args),
      [
        { nonce: 1n, token: '0x0000000000000000000000000000000000000000', sender: depositor.address, recipient: svcRecipient, amount: parseEther('3') },
        { nonce: 2n, token: getAddress(token), sender: depositor.address, recipient: svcRecipient, amount: 5_000n },
      ],
    );
    assert.equal(await publicClient.readContract({ address: bridge, abi: svcBridgeAbi, functionName: 'locked', args: ['0x0000000000000000000000000000000000000000'] }), parseEther('3'));
    assert.equal(await publicClient.readContract({ address: bridge, abi: svcBridgeAbi, functionName: 'locked', args: [token] }), 5_000n);
    await reverts(() => depositorWallet.writeContract({ address: bridge, abi: svcBridgeAbi, functionName: 'depositETH', args: [svcRecipient], value: 0n }), /ZeroAmount/);
  });

  it('releases a withdrawal signed by more than 2/3 of the power, once; refuses exactly 2/3, forged, foreign and malleable signatures', async () => {
    const zero = '0x0000000000000000000000000000000000000000' as Address;
    const amount = parseEther('1');
    const digest = await withdrawalDigest(1n, zero, payee, amount);
    const withdraw = (sigs: Sig[], id = 1n, value = amount) =>
      wallet.writeContract({ address: bridge, abi: svcBridgeAbi, functionName: 'withdraw', args: [id, zero, payee, value, sigs] });

    // 33 + 33 = 66 of 99: exactly two thirds is not more than two thirds.
    await reverts(async () => withdraw(await aligned(set, [0, 1], digest)), /NotEnoughPower.*\(66, 99\)/s);
    // A non-member's signature in member 2's place.
    const forged = await aligned(set, [0, 1], digest);
    forged[2] = await sign(privateKeyToAccount(generatePrivateKey()), digest);
    await reverts(() => withdraw(forged), /BadSignature.*\(2\)/s);
    // Signatures of the right members over another contract's digest.
    const foreign = keccak256(
      encodeAbiParameters(
        [{ type: 'bytes32' }, { type: 'uint256' }, { type: 'address' }, { type: 'uint256' }, { type: 'uint256' }, { type: 'address' }, { type: 'address' }, { type: 'uint256' }],
        [keccak256(toHex('svc-bridge/withdraw/v1')), BigInt(EXTERNAL_CHAIN_ID), '0x00000000000000000000000000000000000bad00', SVC_CHAIN_ID, 1n, zero, payee, amount],
      ),
    );
    await reverts(async () => withdraw(await aligned(set, [0, 1, 3], foreign)), /BadSignature/);
    // The other signature of the same key (s' = n - s, v flipped).
    const malleable = await aligned(set, [0, 1, 3], digest);
    const m = malleable[0]!;
    malleable[0] = { v: m.v === 27 ? 28 : 27, r: m.r, s: toHex(SECP256K1_N - BigInt(m.s), { size: 32 }) };
    await reverts(() => withdraw(malleable), /BadSignature.*\(0\)/s);
    // A different amount than was signed.
    await reverts(async () => withdraw(await aligned(set, [0, 1, 3], digest), 1n, amount * 2n), /BadSignature/);

    // 33 + 33 + 11 = 77 > 66: released, then never again.
    const before = await publicClient.getBalance({ address: payee });
    const receipt = await mined(await withdraw(await aligned(set, [0, 1, 3], digest)));
    assert.equal((await publicClient.getBalance({ address: payee })) - before, amount);
    assert.deepEqual(parseEventLogs({ abi: svcBridgeAbi, eventName: 'Withdrawal', logs: receipt.logs }).map((e) => e.args), [{ id: 1n, token: zero, recipient: payee, amount }]);
    assert.equal(await publicClient.readContract({ address: bridge, abi: svcBridgeAbi, functionName: 'locked', args: [zero] }), parseEther('2'));
    await reverts(async () => withdraw(await aligned(set, [0, 1, 2, 3], digest)), /AlreadyReleased.*\(1\)/s);
  });

  it('hands over to a new set only with the threshold and a newer nonce; the old set then signs nothing', async () => {
    const next = validatorKeys(3);
    const nextPowers = [50n, 30n, 20n];
    const update = (sigs: Sig[], nonce: bigint) =>
      wallet.writeContract({ address: bridge, abi: svcBridgeAbi, functionName: 'updateValset', args: [next.map((a) => a.address), nextPowers, nonce, sigs] });
    const digest = (nonce: bigint) =>
      publicClient.readContract({ address: bridge, abi: svcBridgeAbi, functionName: 'valsetDigest', args: [next.map((a) => a.address), nextPowers, nonce] });

    await reverts(async () => update(await aligned(set, [1, 2, 3], await digest(1n)), 1n), /NotEnoughPower.*\(66, 99\)/s);
    await reverts(async () => update(await aligned(set, [0, 1, 2], await digest(0n)), 0n), /StaleValset.*\(0, 0\)/s);
    const receipt = await mined(await update(await aligned(set, [0, 1, 2], await digest(1n)), 1n));
    assert.equal(parseEventLogs({ abi: svcBridgeAbi, eventName: 'ValsetUpdated', logs: receipt.logs })[0]!.args.nonce, 1n);
    assert.equal(await publicClient.readContract({ address: bridge, abi: svcBridgeAbi, functionName: 'totalPower' }), 100n);
    // The same update again: its nonce is no longer newer.
    await reverts(async () => update(await aligned(set, [0, 1, 2], await digest(1n)), 1n), /StaleValset.*\(1, 1\)/s);

    // An ERC-20 withdrawal: the old set's keys in the new set's places are refused, the new set's accepted.
    const wd = await withdrawalDigest(2n, token, payee, 2_000n);
    const withdraw = (sigs: Sig[]) => wallet.writeContract({ address: bridge, abi: svcBridgeAbi, functionName: 'withdraw', args: [2n, token, payee, 2_000n, sigs] });
    await reverts(async () => withdraw(await Promise.all(set.slice(0, 3).map((a) => sign(a, wd)))), /BadSignature.*\(0\)/s);
    await reverts(async () => withdraw(await aligned(set, [0, 1, 2, 3], wd)), /InvalidValset.*signatures/s);
    await mined(await withdraw(await aligned(next, [0, 1], wd)));
    assert.equal(await publicClient.readContract({ address: token, abi: ERC20, functionName: 'balanceOf', args: [payee] }), 2_000n);
    assert.equal(await publicClient.readContract({ address: bridge, abi: svcBridgeAbi, functionName: 'locked', args: [token] }), 3_000n);
  });
});
