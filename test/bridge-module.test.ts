// The bridge module on its own, with several validators (the devnet has one): the threshold
// arithmetic (exactly 2/3 of stake decides nothing), deposits minted once and only for the content
// that passes it, signatures checked against the contract's digest (forged, replayed from another
// withdrawal, high-s, from outside the set), releases settled once, and, in a property test, the
// lock/mint invariant after every block of random deposits, withdrawals, signatures, relays and
// reorganised deposits (seed: SVC_PROPERTY_SEED).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { decodeFunctionResult, encodeFunctionData, type Hex } from 'viem';
import { privateKeyToAccount, sign } from 'viem/accounts';
import type { Chain, RecordWrite } from '../src/native/index.js';
import { BRIDGE_ABI, BridgeModule, depositContentHash, passesThreshold, valsetDigest, withdrawalDigest } from '../src/modules/bridge/index.js';
import type { BlockContext, BlockInfo, HookResult, ModuleOutcome } from '../src/modules/kernel/module.js';
import { devPrivateKeys } from './support/dev-accounts.js';
import { prng } from './support/prng.js';

type Address = `0x${string}`;
const ZERO: Address = '0x0000000000000000000000000000000000000000';
const TOKEN: Address = '0x00000000000000000000000000000000000070c1';
const CONFIG = { chainId: 31_337, contract: '0x5fbdb2315678afecb367f032d93f642f64180aa3' as Address, confirmations: 3, fromBlock: 0 };
const SVC_CHAIN_ID = 9000;

/** The module's records as a chain holds them: what takeWrites() gave, applied at each block. */
class RecordChain {
  private readonly data = new Map<string, Buffer>();
  getAppValue(key: Buffer): Buffer | null {
    return this.data.get(key.toString('latin1')) ?? null;
  }
  getAppEntries(prefix: Buffer): { key: Buffer; value: Buffer }[] {
    const p = prefix.toString('latin1');
    return [...this.data.keys()]
      .filter((k) => k.startsWith(p))
      .sort()
      .map((k) => ({ key: Buffer.from(k, 'latin1'), value: this.data.get(k)! }));
  }
  apply(writes: RecordWrite[]): void {
    for (const w of writes) {
      if (w.value) this.data.set(w.key.toString('latin1'), w.value);
      else this.data.delete(w.key.toString('latin1'));
    }
  }
}

interface Validator {
  key: Hex;
  address: Address;
  stake: bigint;
}

function validators(stakes: bigint[]): Validator[] {
  const keys = devPrivateKeys(stakes.length + 2).slice(2);
  return stakes
    .map((stake, i) => ({ key: keys[i]!, address: privateKeyToAccount(keys[i]!).address.toLowerCase() as Address, stake }))
    .sort((a, b) => (a.address < b.address ? -1 : 1));
}

/** A bridge module between blocks, as the kernel drives it. */
class Harness {
  readonly chain = new RecordChain();
  readonly module: BridgeModule;
  height = 0;
  /** Native coin minted and burned by the module's hooks; the module account's balance. */
  minted = 0n;
  burned = 0n;
  moduleBalance = 0n;
  readonly nativeOf = new Map<string, bigint>();

  constructor(readonly set: Validator[]) {
    this.module = new BridgeModule(this.chain as unknown as Chain, {
      config: CONFIG,
      valset: { nonce: 0, validators: set.map((v) => v.address), powers: set.map((v) => v.stake) },
      svcChainId: SVC_CHAIN_ID,
    }, SVC_CHAIN_ID, { stake: { bonded: () => this.set.filter((v) => v.stake > 0n).map((v) => ({ address: v.address, tokens: v.stake })) } });
  }

  private ctx(): BlockContext {
    return { height: this.height, now: 1_000 + this.height, nowMs: (1_000 + this.height) * 1000, epoch: 0 };
  }

  /** Whether the next block opens an epoch. */
  epochStart = false;

  private info(): BlockInfo {
    return { ...this.ctx(), epochLengthBlocks: 100, isEpochStart: this.epochStart, parentHash: Buffer.alloc(32), proposer: this.set[0]!.address, signers: [], supplyAtParent: 0n, extraData: Buffer.alloc(0) };
  }

  /** Runs one block: the hooks around `txs` (each a call from an address with a value), then the write. */
  block(txs: { from: Address; data: Hex; value?: bigint }[], epochStart = false): ModuleOutcome[] {
    this.height += 1;
    this.epochStart = epochStart;
    const hooks: HookResult[] = [this.module.beginBlock(this.info())];
    const outcomes = txs.map((t, i) => {
      const out = this.module.execute(
        { from: t.from, value: t.value ?? 0n, data: Buffer.from(t.data.slice(2), 'hex'), gasLimit: 500_000n, intrinsicGas: 21_000n, txHash: Buffer.alloc(32, i) },
        this.ctx(),
      );
      if (out.success && (t.value ?? 0n) > 0n) {
        this.nativeOf.set(t.from, (this.nativeOf.get(t.from) ?? 0n) - t.value!);
        this.moduleBalance += t.value!;
      }
      return out;
    });
    hooks.push(this.module.endBlock(this.info()));
    for (const h of hooks) {
      this.minted += h.minted;
      this.burned += h.burned;
      for (const m of h.moves) {
        const from = m.from ? `0x${m.from.toString('hex')}` : undefined;
        const to = m.to ? `0x${m.to.toString('hex')}` : undefined;
        if (from === '0x0000000000000000000000000000000000001004') this.moduleBalance -= m.amount;
        else if (from) this.nativeOf.set(from, (this.nativeOf.get(from) ?? 0n) - m.amount);
        if (to) this.nativeOf.set(to, (this.nativeOf.get(to) ?? 0n) + m.amount);
      }
    }
    this.chain.apply(this.module.takeWrites());
    this.module.committed();
    return outcomes;
  }

  call(from: Address, functionName: string, args: readonly unknown[]): Hex {
    const out = this.module.simulate(
      { from, value: 0n, data: Buffer.from(encodeFunctionData({ abi: BRIDGE_ABI, functionName, args } as never).slice(2), 'hex'), gasLimit: 500_000n, intrinsicGas: 21_000n },
      this.ctx(),
    );
    assert.ok(out.success, out.reason);
    return `0x${out.returnData.toString('hex')}`;
  }

  wrapped(token: Address, holder: Address): bigint {
    return decodeFunctionResult({ abi: BRIDGE_ABI, functionName: 'wrappedBalanceOf', data: this.call(holder, 'wrappedBalanceOf', [token, holder]) }) as bigint;
  }
}

const attest = (v: Validator, nonce: bigint, token: Address, sender: Address, recipient: Address, amount: bigint) => ({
  from: v.address,
  data: encodeFunctionData({ abi: BRIDGE_ABI, functionName: 'attestDeposit', args: [nonce, token, sender, recipient, amount] }),
});
const withdrawTx = (from: Address, token: Address, recipient: Address, amount: bigint, value = 0n) => ({
  from,
  value,
  data: encodeFunctionData({ abi: BRIDGE_ABI, functionName: 'withdraw', args: [token, recipient, amount] }),
});
const signTx = (v: Validator, id: bigint, signature: Hex) => ({ from: v.address, data: encodeFunctionData({ abi: BRIDGE_ABI, functionName: 'signWithdrawal', args: [id, signature] }) });
const releaseTx = (v: Validator, id: bigint) => ({ from: v.address, data: encodeFunctionData({ abi: BRIDGE_ABI, functionName: 'attestRelease', args: [id] }) });
const sender: Address = '0x00000000000000000000000000000000000005e1';
const alice: Address = '0x00000000000000000000000000000000000a11ce';
const ext: Address = '0x0000000000000000000000000000000000000e71';

describe('the bridge module', () => {
  it('needs more than 2/3: attested * 3 > bonded * 2', () => {
    assert.equal(passesThreshold(2n, 3n), false, 'exactly 2/3');
    assert.equal(passesThreshold(3n, 4n), true);
    assert.equal(passesThreshold(66n, 100n), false);
    assert.equal(passesThreshold(67n, 100n), true);
    assert.equal(passesThreshold(0n, 0n), false, 'nothing bonded decides nothing');
  });

  it('mints a deposit once, when validators holding more than 2/3 of stake attested the same content', () => {
    const set = validators([40n, 20n, 30n]);
    const h = new Harness(set);
    const big = set.find((v) => v.stake === 40n)!;
    const mid = set.find((v) => v.stake === 30n)!;
    const small = set.find((v) => v.stake === 20n)!;
    // 40 + 20 = 60 of 90: exactly 2/3, not minted.
    let out = h.block([attest(big, 1n, ZERO, sender, alice, 1_000n), attest(small, 1n, ZERO, sender, alice, 1_000n)]);
    assert.ok(out.every((o) => o.success));
    assert.equal(h.nativeOf.get(alice) ?? 0n, 0n, 'exactly 2/3 of stake mints nothing');
    assert.equal(h.module.status().pendingDeposits, 1);
    // A validator attests once per nonce.
    out = h.block([attest(big, 1n, ZERO, sender, alice, 1_000n)]);
    assert.equal(out[0]!.success, false);
    assert.match(out[0]!.reason!, /already attested deposit 1/);
    // The third: 90 of 90, minted.
    out = h.block([attest(mid, 1n, ZERO, sender, alice, 1_000n)]);
    assert.ok(out[0]!.success);
    assert.equal(h.nativeOf.get(alice), 1_000n);
    assert.equal(h.minted, 1_000n);
    assert.deepEqual({ ...h.module.status() }, {
      active: true, validatorCount: 3, threshold: 6_667, totalDeposits: 1, totalWithdrawals: 0, pendingDeposits: 0, pendingWithdrawals: 0, totalValueLocked: '1000',
    });
    // Once minted, never again.
    out = h.block([attest(mid, 1n, ZERO, sender, alice, 1_000n)]);
    assert.match(out[0]!.reason!, /already minted/);
    assert.equal(h.minted, 1_000n);
  });

  it('counts validators that attested different content apart, and refuses attestations that are not a bonded validator’s', () => {
    const set = validators([10n, 10n, 10n, 10n]);
    const h = new Harness(set);
    // One validator saw a deposit that was reorganised away (another amount at nonce 1).
    let out = h.block([
      attest(set[0]!, 1n, TOKEN, sender, alice, 999n),
      attest(set[1]!, 1n, TOKEN, sender, alice, 500n),
      attest(set[2]!, 1n, TOKEN, sender, alice, 500n),
    ]);
    assert.ok(out.every((o) => o.success));
    assert.equal(h.wrapped(TOKEN, alice), 0n, '20 of 40 for one content, 10 for the other: nothing minted');
    out = h.block([attest(set[3]!, 1n, TOKEN, sender, alice, 500n)]);
    assert.equal(h.wrapped(TOKEN, alice), 500n, 'the content 30 of 40 attested is minted');
    const d = h.module.deposit(1)!;
    assert.equal(d.minted!.content, depositContentHash(1, { token: TOKEN, sender, recipient: alice, amount: 500n }));
    out = h.block([
      { from: alice, data: attest(set[0]!, 2n, ZERO, sender, alice, 5n).data },
      attest(set[0]!, 0n, ZERO, sender, alice, 5n),
      attest(set[0]!, 10_002n, ZERO, sender, alice, 5n),
      attest(set[0]!, 2n, ZERO, sender, alice, 0n),
    ]);
    assert.match(out[0]!.reason!, /is not a bonded validator's operator/);
    assert.match(out[1]!.reason!, /out of range/);
    assert.match(out[2]!.reason!, /more than 10000 beyond the lowest one not minted \(2\)/);
    assert.match(out[3]!.reason!, /deposit of nothing/);
    assert.equal(h.module.status().pendingDeposits, 0, 'refused attestations record nothing');
  });

  it('checks each withdrawal signature against the contract digest, and settles a release once', async () => {
    const set = validators([10n, 10n, 10n]);
    const h = new Harness(set);
    h.block(set.map((v) => attest(v, 1n, ZERO, sender, alice, 1_000n)));
    h.block(set.map((v) => attest(v, 2n, TOKEN, sender, alice, 300n)));
    assert.equal(h.nativeOf.get(alice), 1_000n);
    // What did not come over cannot leave; a native withdrawal carries its amount as value.
    let out = h.block([withdrawTx(alice, ZERO, ext, 1_001n, 1_001n), withdrawTx(alice, ZERO, ext, 400n, 300n), withdrawTx(alice, TOKEN, ext, 301n), withdrawTx(alice, ZERO, ZERO, 1n, 1n)]);
    assert.match(out[0]!.reason!, /only 1000 of bridged native coin came over the bridge; 1001 cannot leave/);
    assert.match(out[1]!.reason!, /sends its amount as the call's value/);
    assert.match(out[2]!.reason!, /only 300 of token .* came over the bridge; 301 cannot leave/);
    assert.match(out[3]!.reason!, /zero address/);
    const supplyBefore = h.minted - h.burned;
    out = h.block([withdrawTx(alice, ZERO, ext, 400n, 400n), withdrawTx(alice, TOKEN, ext, 100n)]);
    assert.ok(out.every((o) => o.success));
    assert.equal(h.minted - h.burned, supplyBefore - 400n, 'the native withdrawal left the supply at the block end');
    assert.equal(h.moduleBalance, 0n, 'the module holds nothing between blocks');
    assert.equal(h.wrapped(TOKEN, alice), 200n);
    const w1 = h.module.withdrawal(1)!;
    const w2 = h.module.withdrawal(2)!;
    assert.equal(w1.digest, withdrawalDigest(CONFIG, SVC_CHAIN_ID, 1, ZERO, ext, 400n));

    const good = (v: Validator, digest: Hex) => sign({ hash: digest, privateKey: v.key, to: 'hex' });
    const outsider = devPrivateKeys(1)[0]!;
    // High s: the same signature's other encoding.
    const s0 = await good(set[0]!, w1.digest);
    const SECP256K1_N = 0xfffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141n;
    const highS = SECP256K1_N - BigInt(`0x${s0.slice(66, 130)}`);
    const malleable = `0x${s0.slice(2, 66)}${highS.toString(16).padStart(64, '0')}${s0.slice(130) === '1b' ? '1c' : '1b'}` as Hex;
    out = h.block([
      signTx(set[0]!, 1n, await sign({ hash: w1.digest, privateKey: outsider, to: 'hex' })),
      signTx(set[0]!, 1n, await good(set[0]!, w2.digest)),
      signTx(set[0]!, 1n, malleable),
      { from: privateKeyToAccount(outsider).address.toLowerCase() as Address, data: signTx(set[0]!, 1n, await sign({ hash: w1.digest, privateKey: outsider, to: 'hex' })).data },
      signTx(set[0]!, 9n, s0),
    ]);
    assert.match(out[0]!.reason!, /the signature is not 0x[0-9a-f]{40}'s of withdrawal 1's digest/, 'forged');
    assert.match(out[1]!.reason!, /the signature is not/, "replayed from withdrawal 2's digest");
    assert.match(out[2]!.reason!, /the signature is not/, 'high s');
    assert.match(out[3]!.reason!, /is not in the bridged validator set/);
    assert.match(out[4]!.reason!, /no open withdrawal 9/);
    assert.equal(h.module.withdrawal(1)!.signatures.length, 0);
    // Two of three (20 of 30) is exactly 2/3: not ready; the third makes it ready.
    h.block([signTx(set[0]!, 1n, s0), signTx(set[1]!, 1n, await good(set[1]!, w1.digest))]);
    assert.equal(h.module.withdrawal(1)!.readyHeight, null);
    out = h.block([signTx(set[1]!, 1n, await good(set[1]!, w1.digest)), signTx(set[2]!, 1n, await good(set[2]!, w1.digest))]);
    assert.match(out[0]!.reason!, /already signed withdrawal 1/);
    assert.ok(out[1]!.success);
    assert.equal(h.module.withdrawal(1)!.readyHeight, h.height);
    // Release: attested by all three, settled once.
    h.block(set.map((v) => releaseTx(v, 1n)));
    assert.equal(h.module.withdrawal(1)!.releasedHeight, h.height);
    out = h.block([releaseTx(set[0]!, 1n), signTx(set[0]!, 1n, s0)]);
    assert.match(out[0]!.reason!, /withdrawal 1 is already released/);
    assert.match(out[1]!.reason!, /no open withdrawal 1/);
    const s = h.module.status();
    assert.equal(s.totalWithdrawals, 1);
    assert.equal(s.pendingWithdrawals, 1);
    assert.equal(s.totalValueLocked, '600');
  });

  it('records a new set at an epoch start when stake moved by more than 5%, signed by the current set and taken once attested', async () => {
    const set = validators([10n, 10n, 10n]);
    const h = new Harness(set);
    h.block([]);
    // 10, 10, 10 -> 10, 10, 11: moved 1 of 30 (3.3%), not bridged.
    set[2]!.stake = 11n;
    h.block([], true);
    assert.equal(h.module.pendingValset, null);
    // A fourth validator joins: a new set at the next epoch start.
    const joiner = validators([0n, 0n, 0n, 7n])[3]!;
    h.set.push(joiner);
    h.block([], true);
    const pending = h.module.pendingValset!;
    assert.equal(pending.nonce, 1);
    assert.deepEqual(pending.validators, [...set].sort((a, b) => (a.address < b.address ? -1 : 1)).map((v) => v.address));
    assert.equal(pending.digest, valsetDigest(CONFIG, SVC_CHAIN_ID, { nonce: 1, validators: pending.validators, powers: pending.powers }));
    assert.equal(h.module.status().active, false, 'the contract is behind while a set waits');
    const current = set.filter((v) => v !== joiner);
    const signValset = (v: Validator, nonce: bigint, signature: Hex) => ({ from: v.address, data: encodeFunctionData({ abi: BRIDGE_ABI, functionName: 'signValset', args: [nonce, signature] }) });
    const attestValset = (v: Validator, nonce: bigint) => ({ from: v.address, data: encodeFunctionData({ abi: BRIDGE_ABI, functionName: 'attestValset', args: [nonce] }) });
    const sig = (v: Validator) => sign({ hash: pending.digest, privateKey: v.key, to: 'hex' });
    let out = h.block([signValset(joiner, 1n, await sig(joiner)), signValset(current[0]!, 2n, await sig(current[0]!)), signValset(current[0]!, 1n, await sign({ hash: pending.digest, privateKey: joiner.key, to: 'hex' }))]);
    assert.match(out[0]!.reason!, /is not in the bridged validator set \(nonce 0\), which signs the next/);
    assert.match(out[1]!.reason!, /no pending validator set 2 \(the pending one is 1\)/);
    assert.match(out[2]!.reason!, /the signature is not/);
    // Weighed by the current set's powers (10, 10, 10): two of three is exactly 2/3, not ready; the third signs.
    out = h.block([signValset(current[0]!, 1n, await sig(current[0]!)), signValset(current[1]!, 1n, await sig(current[1]!))]);
    assert.ok(out.every((o) => o.success));
    assert.equal(h.module.pendingValset!.readyHeight, null);
    h.block([signValset(current[2]!, 1n, await sig(current[2]!))]);
    assert.equal(h.module.pendingValset!.readyHeight, h.height);
    // Signed by the threshold, the pending set may be on the contract: another move of stake at the
    // next epoch start does not replace it.
    joiner.stake = 20n;
    h.block([], true);
    assert.equal(h.module.pendingValset!.nonce, 1, 'a ready set is not replaced');
    assert.deepEqual(h.module.pendingValset!.powers, pending.powers);
    // The contract's update attested by bonded stake (51 in all now): two of the three first validators are not enough, all four are.
    out = h.block([attestValset(current[0]!, 1n), attestValset(current[1]!, 1n), attestValset(current[0]!, 1n)]);
    assert.match(out[2]!.reason!, /already attested validator set 1/);
    assert.equal(h.module.valset!.nonce, 0);
    h.block([attestValset(current[2]!, 1n), attestValset(joiner, 1n)]);
    assert.equal(h.module.valset!.nonce, 1);
    assert.deepEqual(h.module.valset!.validators, pending.validators);
    assert.equal(h.module.pendingValset, null);
    assert.deepEqual({ active: h.module.status().active, validatorCount: h.module.status().validatorCount }, { active: true, validatorCount: 4 });
    // The move that waited is recorded at the next epoch start, from the set the contract now holds.
    h.block([], true);
    assert.equal(h.module.pendingValset!.nonce, 2);
    assert.ok(h.module.pendingValset!.powers.includes(20n));
    assert.equal(h.module.status().active, false);
    // A set nobody has signed yet is replaced by the next move.
    joiner.stake = 40n;
    h.block([], true);
    assert.equal(h.module.pendingValset!.nonce, 3, 'a new nonce: the contract takes any higher one, 2 is skipped');
    assert.ok(h.module.pendingValset!.powers.includes(40n), 'replaced: it could not have been relayed');
    // Withdrawal signatures are now weighed against the new set: the joiner may sign.
    h.block(set.map((v) => attest(v, 1n, ZERO, sender, alice, 10n)));
    h.block([withdrawTx(alice, ZERO, ext, 10n, 10n)]);
    const w = h.module.withdrawal(1)!;
    out = h.block([signTx(joiner, 1n, await sign({ hash: w.digest, privateKey: joiner.key, to: 'hex' }))]);
    assert.ok(out[0]!.success, out[0]!.reason);
  });

  it('keeps locked on the external chain = minted - released + deposits not yet minted, after every block (property)', async () => {
    const seed = BigInt(process.env.SVC_PROPERTY_SEED ?? '20261126');
    const next = prng(seed);
    const pick = (n: number) => Number(next() % BigInt(n));
    const set = validators([30n, 20n, 25n, 25n]);
    const h = new Harness(set);
    const tokens: Address[] = [ZERO, TOKEN];
    const holders: Address[] = [alice, '0x00000000000000000000000000000000000b0b00', '0x0000000000000000000000000000000000ca1100'];
    // The external contract as a model: locked per token, deposits by nonce, released ids.
    const locked = new Map<Address, bigint>(tokens.map((t) => [t, 0n]));
    const externalDeposits: { nonce: bigint; token: Address; recipient: Address; amount: bigint }[] = [];
    const releasedIds = new Set<number>();
    const reported = new Map<bigint, Set<string>>();
    let nonce = 0n;
    for (let round = 0; round < 250; round++) {
      const txs: { from: Address; data: Hex; value?: bigint }[] = [];
      // A deposit on the external chain.
      if (pick(3) === 0) {
        nonce += 1n;
        const token = tokens[pick(2)]!;
        const d = { nonce, token, recipient: holders[pick(3)]!, amount: BigInt(1 + pick(1_000)) };
        externalDeposits.push(d);
        locked.set(token, locked.get(token)! + d.amount);
        // Sometimes one validator first saw a different deposit at this nonce (an external reorganisation).
        if (pick(5) === 0) txs.push(attest(set[pick(4)]!, nonce, token, sender, d.recipient, d.amount + 1n));
      }
      // Validators report deposits, each when its watcher gets there.
      for (const d of externalDeposits) {
        for (const v of set) {
          const seen = reported.get(d.nonce) ?? new Set();
          if (seen.has(v.address) || pick(3) !== 0) continue;
          const rec = h.module.deposit(Number(d.nonce));
          if (rec?.minted || rec?.attestations.some((a) => a.attesters.includes(v.address))) continue;
          seen.add(v.address);
          reported.set(d.nonce, seen);
          txs.push(attest(v, d.nonce, d.token, sender, d.recipient, d.amount));
        }
      }
      // Holders withdraw some of what they have.
      if (pick(4) === 0) {
        const holder = holders[pick(3)]!;
        const token = tokens[pick(2)]!;
        const have = token === ZERO ? h.nativeOf.get(holder) ?? 0n : h.wrapped(token, holder);
        if (have > 0n) {
          const amount = 1n + (next() % have);
          txs.push(withdrawTx(holder, token, ext, amount, token === ZERO ? amount : 0n));
        }
      }
      // Validators sign open withdrawals; ready ones are relayed (the model contract releases), then attested.
      for (const w of h.module.openWithdrawals()) {
        for (const v of set) if (pick(2) === 0 && !w.signatures.some((s) => s.validator === v.address)) txs.push(signTx(v, BigInt(w.id), await sign({ hash: w.digest, privateKey: v.key, to: 'hex' })));
        if (w.readyHeight !== null && !releasedIds.has(w.id) && pick(2) === 0) {
          releasedIds.add(w.id);
          locked.set(w.token, locked.get(w.token)! - w.amount);
        }
        if (releasedIds.has(w.id)) for (const v of set) if (pick(2) === 0 && !w.releaseAttesters.includes(v.address)) txs.push(releaseTx(v, BigInt(w.id)));
      }
      h.block(txs);

      // The invariant, per token.
      const totals = h.module.totals();
      for (const token of tokens) {
        const t = totals[token] ?? { minted: 0n, withdrawn: 0n, released: 0n };
        const unminted = externalDeposits.filter((d) => d.token === token && !h.module.deposit(Number(d.nonce))?.minted).reduce((a, d) => a + d.amount, 0n);
        const relayedUnattested = h.module.withdrawals().filter((w) => w.token === token && releasedIds.has(w.id) && w.releasedHeight === null).reduce((a, w) => a + w.amount, 0n);
        const circulating = t.minted - t.withdrawn;
        const inFlight = t.withdrawn - t.released;
        assert.equal(locked.get(token), circulating + inFlight - relayedUnattested + unminted, `round ${round} token ${token} (seed ${seed})`);
        assert.ok(t.released <= t.withdrawn && t.withdrawn <= t.minted, `round ${round}: released ≤ withdrawn ≤ minted`);
        const held = token === ZERO ? holders.reduce((a, x) => a + (h.nativeOf.get(x) ?? 0n), 0n) : holders.reduce((a, x) => a + h.wrapped(token, x), 0n);
        assert.equal(held, circulating, `round ${round}: what holders have of ${token} is what circulates`);
      }
      assert.equal(h.minted - h.burned, (totals[ZERO]?.minted ?? 0n) - (totals[ZERO]?.withdrawn ?? 0n), 'native supply moved by exactly minted - withdrawn');
      assert.equal(h.moduleBalance, 0n);
      // Every minted deposit is one the external chain holds, with its content.
      for (const d of h.module.deposits().filter((x) => x.minted)) {
        const e = externalDeposits.find((x) => Number(x.nonce) === d.nonce)!;
        assert.equal(d.minted!.content, depositContentHash(d.nonce, { token: e.token, sender, recipient: e.recipient, amount: e.amount }));
      }
    }
    const s = h.module.status();
    assert.ok(s.totalDeposits > 20 && s.totalWithdrawals > 5, `the run exercised the bridge: ${JSON.stringify(s)}`);
  });
});
