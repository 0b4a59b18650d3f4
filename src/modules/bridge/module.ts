// The bridge system module (docs/bridge.md): the svc side of a lock-and-mint bridge to one external
// EVM chain whose SvcBridge contract (contracts/bridge/SvcBridge.sol) locks deposits and releases
// withdrawals signed by the bridged validator set.
//
// Transactions to params.system.bridgeAddress (abi/bridge.json):
//   attestDeposit   a bonded validator's operator reports a contract Deposit it saw at the
//                   confirmation depth; validators that attest different content for one nonce
//                   (after an external reorganisation) are counted apart.
//   withdraw        burns what leaves svc (native coin: the call's value; a wrapped token: the
//                   caller's wrapped balance) and records withdrawal `id` with the contract's digest.
//   signWithdrawal  a member of the bridged set adds its signature of that digest (checked here).
//   attestRelease   a bonded validator reports the contract's Withdrawal event for `id`.
//   transferWrapped moves a wrapped balance on svc.
// At the end of each block, driven by the block's records alone: a deposit content attested by
// validators holding more than 2/3 of bonded stake (attested * 3 > bonded * 2, stake as the block
// ends) is minted once; a release attested the same way settles its withdrawal; the native coin
// withdrawn in the block leaves the supply. Records live under "bridge/" (store.ts).
import { readFileSync } from 'node:fs';
import { encodeAbiParameters, encodeFunctionResult, keccak256, type Abi, type Hex } from 'viem';
import { core, type Chain, type ModuleLog, type RecordWrite } from '../../native/index.js';
import { bridge as params, system } from '../../params.js';
import {
  abiEvents,
  addressBuffer,
  moduleLog,
  noChange,
  runDecided,
  type BlockContext,
  type BlockInfo,
  type Decision,
  type HookResult,
  type ModuleCall,
  type ModuleOutcome,
  type ModuleTx,
  type SystemModule,
} from '../kernel/module.js';
import { BridgeStore } from './store.js';
import type {
  Address,
  BridgeConfig,
  BridgeEvent,
  BridgeGlobal,
  BridgeStatus,
  BridgeValset,
  DepositContent,
  PendingValset,
  DepositRecord,
  TokenTotals,
  WithdrawalRecord,
} from './types.js';

export const BRIDGE_ABI = JSON.parse(readFileSync(new URL('../../../../abi/bridge.json', import.meta.url), 'utf8')) as Abi;

const BRIDGE: Address = system.bridgeAddress as Address;
const EVENTS = abiEvents(BRIDGE_ABI);
const ZERO: Address = '0x0000000000000000000000000000000000000000';
/** SvcBridge's WITHDRAW_TAG and VALSET_TAG. */
const WITHDRAW_TAG = keccak256(Buffer.from('svc-bridge/withdraw/v1'));
const VALSET_TAG = keccak256(Buffer.from('svc-bridge/valset/v1'));
const MAX_ID = BigInt(Number.MAX_SAFE_INTEGER);

const log = (name: string, indexed: Record<string, unknown>, data: { type: string; value: unknown }[]): ModuleLog => moduleLog(EVENTS, name, indexed, data);
const lower = (a: string): Address => a.toLowerCase() as Address;

/** The bonded validators as the bridge weighs attestations: the staking module's active set. */
export interface BridgeStake {
  bonded(): { address: Address; tokens: bigint }[];
}

/** What the genesis gives the bridge: the external chain, and the set its contract was deployed with. */
export interface BridgeGenesis {
  config: BridgeConfig;
  valset: BridgeValset;
  /** The chain id of svc (the contract's svcChainId). */
  svcChainId: number;
}

/** keccak256(abi.encode(nonce, token, sender, recipient, amount)): what validators agree on for one deposit. */
export function depositContentHash(nonce: number | bigint, c: DepositContent): Hex {
  return keccak256(
    encodeAbiParameters(
      [{ type: 'uint256' }, { type: 'address' }, { type: 'address' }, { type: 'address' }, { type: 'uint256' }],
      [BigInt(nonce), c.token, c.sender, c.recipient, c.amount],
    ),
  );
}

/** SvcBridge.withdrawalDigest(id, token, recipient, amount) for the contract `config` names. */
export function withdrawalDigest(config: BridgeConfig, svcChainId: number, id: number, token: Address, recipient: Address, amount: bigint): Hex {
  return keccak256(
    encodeAbiParameters(
      [{ type: 'bytes32' }, { type: 'uint256' }, { type: 'address' }, { type: 'uint256' }, { type: 'uint256' }, { type: 'address' }, { type: 'address' }, { type: 'uint256' }],
      [WITHDRAW_TAG, BigInt(config.chainId), config.contract, BigInt(svcChainId), BigInt(id), token, recipient, amount],
    ),
  );
}

/** SvcBridge.valsetDigest(validators, powers, nonce) for the contract `config` names. */
export function valsetDigest(config: BridgeConfig, svcChainId: number, set: BridgeValset): Hex {
  return keccak256(
    encodeAbiParameters(
      [{ type: 'bytes32' }, { type: 'uint256' }, { type: 'address' }, { type: 'uint256' }, { type: 'uint256' }, { type: 'address[]' }, { type: 'uint256[]' }],
      [VALSET_TAG, BigInt(config.chainId), config.contract, BigInt(svcChainId), BigInt(set.nonce), set.validators, set.powers],
    ),
  );
}

/**
 * The set to bridge from the bonded validators: the largest `maxValidators` stakes (ties by
 * address), ascending by address as the contract keeps them.
 */
export function bridgedSet(bonded: readonly { address: Address; tokens: bigint }[], nonce: number): BridgeValset {
  const chosen = [...bonded]
    .filter((v) => v.tokens > 0n)
    .sort((a, b) => (a.tokens === b.tokens ? (a.address < b.address ? -1 : 1) : a.tokens > b.tokens ? -1 : 1))
    .slice(0, params.maxValidators)
    .sort((a, b) => (a.address < b.address ? -1 : 1));
  return { nonce, validators: chosen.map((v) => lower(v.address)), powers: chosen.map((v) => v.tokens) };
}

/** Whether `next` differs enough from `current` to be bridged: another membership, or powers moved by more than valsetChangeBps of the current total. */
export function valsetMoved(current: BridgeValset, next: BridgeValset): boolean {
  if (current.validators.join() !== next.validators.join()) return true;
  const total = current.powers.reduce((a, b) => a + b, 0n);
  const moved = current.powers.reduce((sum, p, i) => sum + (p > next.powers[i]! ? p - next.powers[i]! : next.powers[i]! - p), 0n);
  return moved * 10_000n > total * BigInt(params.valsetChangeBps);
}

/** Whether `part` of `total` passes the bridge's threshold: part * 3 > total * 2 (and something is at stake). */
export function passesThreshold(part: bigint, total: bigint): boolean {
  return total > 0n && part * 3n > total * 2n;
}

/** The power of `signers` in `valset`. */
export function signedPower(valset: BridgeValset, signers: readonly Address[]): bigint {
  const set = new Set(signers);
  return valset.validators.reduce((sum, v, i) => (set.has(v) ? sum + valset.powers[i]! : sum), 0n);
}


export class BridgeModule implements SystemModule {
  readonly name = 'bridge';
  readonly address: Address = BRIDGE;
  readonly abi: Abi = BRIDGE_ABI;
  /** The bridge's block events of the last block committed. */
  lastBlockEvents: BridgeEvent[] = [];
  private building: BridgeEvent[] = [];
  private readonly store: BridgeStore;
  private stake: BridgeStake | undefined;
  /** Deposit nonces and withdrawal ids attested in the block being built (endBlock decides them). */
  private touchedDeposits = new Set<number>();
  private touchedReleases = new Set<number>();
  private touchedValset = false;
  /** Native coin withdrawn in the block being built: burned at its end. */
  private nativeWithdrawn = 0n;

  constructor(
    chain: Chain,
    private readonly genesis: BridgeGenesis | null,
    private readonly svcChainId: number,
  ) {
    this.store = new BridgeStore(chain);
  }

  setKeepers(stake: BridgeStake): void {
    this.stake = stake;
  }

  // ---- reads ----

  get config(): BridgeConfig | null {
    return this.store.global.config ?? this.genesis?.config ?? null;
  }

  get valset(): BridgeValset | null {
    return this.store.global.valset ?? this.genesis?.valset ?? null;
  }

  get global(): Readonly<BridgeGlobal> {
    return this.store.global;
  }

  deposit(nonce: number): DepositRecord | undefined {
    return this.store.deposit(nonce);
  }

  withdrawal(id: number): WithdrawalRecord | undefined {
    return this.store.withdrawal(id);
  }

  deposits(): DepositRecord[] {
    return this.store.allDeposits();
  }

  withdrawals(): WithdrawalRecord[] {
    return this.store.allWithdrawals();
  }

  openWithdrawals(): WithdrawalRecord[] {
    return [...this.store.withdrawals.values()].sort((a, b) => a.id - b.id);
  }

  wrappedBalance(token: Address, holder: Address): bigint {
    return this.store.wrapped(lower(token), lower(holder));
  }

  /** Per token: minted, withdrawn, released. */
  totals(): Readonly<Record<Address, TokenTotals>> {
    return this.store.global.tokens;
  }

  /**
   * svc_getBridgeStatus from the records. `active` here: an external chain is configured and no
   * newer set waits to be taken by the contract (while one does, the contract's set is behind); the
   * node narrows it with what it reads of the external contract (src/bridge/agent.ts).
   */
  status(): BridgeStatus {
    const g = this.store.global;
    const eth = g.tokens[ZERO];
    return {
      active: this.config !== null && this.store.global.pendingValset === null,
      validatorCount: this.valset?.validators.length ?? 0,
      threshold: params.thresholdBps,
      totalDeposits: g.depositsMinted,
      totalWithdrawals: g.withdrawalsReleased,
      pendingDeposits: g.pendingDeposits.length,
      pendingWithdrawals: g.pendingWithdrawals.length,
      totalValueLocked: (eth ? eth.minted - eth.released : 0n).toString(),
    };
  }

  // ---- the kernel's hooks ----

  reload(chain: Chain): void {
    this.store.reload(chain);
    this.building = [];
    this.touchedDeposits.clear();
    this.touchedReleases.clear();
    this.touchedValset = false;
    this.nativeWithdrawn = 0n;
  }

  takeWrites(): RecordWrite[] {
    return this.store.takeWrites();
  }

  committed(): void {
    this.store.committed();
    this.lastBlockEvents = this.building;
    this.building = [];
  }

  /** The next set, while one is being signed and relayed. */
  get pendingValset(): Readonly<PendingValset> | null {
    return this.store.global.pendingValset;
  }

  /**
   * The first block records the genesis configuration and set, so the state root commits to them.
   * An epoch's first block (after staking opened the epoch) records a new set when the bonded
   * validators moved away from the bridged one; it replaces a pending set that the threshold has
   * not signed yet (that one cannot have been relayed; the contract takes any higher nonce, so its
   * nonce is simply skipped).
   */
  beginBlock(block: BlockInfo): HookResult {
    const g = this.store.global;
    if (g.config === null && this.genesis) {
      g.config = this.genesis.config;
      g.valset = this.genesis.valset;
      this.store.saveGlobal();
    }
    // A pending set already signed by the threshold may be on the contract: it is not replaced
    // until its update is attested (the next set is then recorded from the set it became).
    if (g.config && g.valset && block.isEpochStart && block.height > 1 && g.pendingValset?.readyHeight == null) {
      const base = g.pendingValset ?? g.valset;
      const next = bridgedSet(this.stake!.bonded(), base.nonce + 1);
      if (next.validators.length > 0 && valsetMoved(g.valset, next) && (g.pendingValset === null || valsetMoved(g.pendingValset, next))) {
        g.pendingValset = {
          ...next,
          digest: valsetDigest(g.config, this.svcChainId, next),
          recordedHeight: block.height,
          signatures: [],
          readyHeight: null,
          attesters: [],
        };
        this.store.saveGlobal();
        this.building.push({ kind: 'valset-recorded', height: block.height, nonce: next.nonce, validators: next.validators, powers: next.powers });
      }
    }
    return noChange();
  }

  /** Deposits and releases attested in the block are decided; native coin withdrawn in it is burned. */
  endBlock(block: BlockInfo): HookResult {
    const result = noChange();
    const touched = this.touchedDeposits.size + this.touchedReleases.size + (this.touchedValset ? 1 : 0);
    if (touched > 0) {
      const bonded = this.bondedStake();
      const total = [...bonded.values()].reduce((a, b) => a + b, 0n);
      const power = (attesters: readonly Address[]) => attesters.reduce((sum, a) => sum + (bonded.get(a) ?? 0n), 0n);
      for (const nonce of [...this.touchedDeposits].sort((a, b) => a - b)) {
        const d = this.store.deposits.get(nonce);
        if (!d || d.minted) continue;
        const winner = d.attestations.find((a) => passesThreshold(power(a.attesters), total));
        if (winner) this.mint(d, winner.content, winner.fields, block, result);
      }
      for (const id of [...this.touchedReleases].sort((a, b) => a - b)) {
        const w = this.store.withdrawals.get(id);
        if (!w || w.releasedHeight !== null) continue;
        if (passesThreshold(power(w.releaseAttesters), total)) this.release(w, block);
      }
      const pending = this.store.global.pendingValset;
      if (this.touchedValset && pending && passesThreshold(power(pending.attesters), total)) this.switchValset(pending, block);
    }
    if (this.nativeWithdrawn > 0n) {
      result.moves.push({ from: addressBuffer(BRIDGE), amount: this.nativeWithdrawn });
      result.burned += this.nativeWithdrawn;
    }
    this.touchedDeposits.clear();
    this.touchedReleases.clear();
    this.touchedValset = false;
    this.nativeWithdrawn = 0n;
    return result;
  }

  private bondedStake(): Map<Address, bigint> {
    return new Map(this.stake!.bonded().map((v) => [lower(v.address), v.tokens]));
  }

  private tokenTotals(token: Address): TokenTotals {
    const g = this.store.global;
    return (g.tokens[token] ??= { minted: 0n, withdrawn: 0n, released: 0n });
  }

  private mint(d: DepositRecord, content: Hex, f: DepositContent, block: BlockInfo, result: HookResult): void {
    const g = this.store.global;
    if (f.token === ZERO) {
      result.moves.push({ to: addressBuffer(f.recipient), amount: f.amount });
      result.minted += f.amount;
    } else {
      this.store.setWrapped(f.token, f.recipient, this.store.wrapped(f.token, f.recipient) + f.amount);
    }
    this.tokenTotals(f.token).minted += f.amount;
    d.minted = { content, height: block.height };
    this.store.saveDeposit(d);
    g.depositsMinted += 1;
    g.pendingDeposits = g.pendingDeposits.filter((n) => n !== d.nonce);
    while (g.lowestUnminted === d.nonce || this.store.deposit(g.lowestUnminted)?.minted) g.lowestUnminted += 1;
    this.store.saveGlobal();
    this.building.push({ kind: 'deposit-minted', height: block.height, nonce: d.nonce, token: f.token, recipient: f.recipient, amount: f.amount });
  }

  /** The contract took the pending set (attested): it becomes the set signatures are weighed against. */
  private switchValset(pending: PendingValset, block: BlockInfo): void {
    const g = this.store.global;
    const set: BridgeValset = { nonce: pending.nonce, validators: pending.validators, powers: pending.powers };
    g.valset = set;
    g.pendingValset = null;
    this.store.saveGlobal();
    this.building.push({ kind: 'valset-updated', height: block.height, nonce: set.nonce, validators: set.validators, powers: set.powers });
    // Withdrawals waiting for signatures are weighed against the new set.
    for (const w of this.openWithdrawals()) {
      if (w.readyHeight === null && this.signedEnough(set, w.signatures.map((x) => x.validator))) {
        w.readyHeight = block.height;
        this.store.saveWithdrawal(w);
        this.building.push({ kind: 'withdrawal-ready', height: block.height, id: w.id, token: w.token, recipient: w.recipient, amount: w.amount });
      }
    }
  }

  private signedEnough(set: BridgeValset, signers: readonly Address[]): boolean {
    return passesThreshold(signedPower(set, signers), set.powers.reduce((a, b) => a + b, 0n));
  }

  private release(w: WithdrawalRecord, block: BlockInfo): void {
    const g = this.store.global;
    w.releasedHeight = block.height;
    this.store.saveWithdrawal(w);
    this.tokenTotals(w.token).released += w.amount;
    g.withdrawalsReleased += 1;
    g.pendingWithdrawals = g.pendingWithdrawals.filter((n) => n !== w.id);
    this.store.saveGlobal();
    this.building.push({ kind: 'withdrawal-released', height: block.height, id: w.id, token: w.token, recipient: w.recipient, amount: w.amount });
  }

  // ---- transactions ----

  execute(tx: ModuleTx, ctx: BlockContext): ModuleOutcome {
    return this.run(tx, ctx, true);
  }

  simulate(call: ModuleCall, ctx: BlockContext): ModuleOutcome {
    return this.run(call, ctx, false);
  }

  private run(call: ModuleCall, ctx: BlockContext, apply: boolean): ModuleOutcome {
    const gas = params.gas as Record<string, number>;
    return runDecided(this.name, BRIDGE_ABI, call, apply, (name, isView) => (isView ? gas.view! : gas[name]!), (name, args) => this.decide(call, name, args, ctx));
  }

  private decide(call: ModuleCall, name: string, args: readonly unknown[], ctx: BlockContext): Decision {
    const result = (value: unknown): Buffer => Buffer.from(encodeFunctionResult({ abi: BRIDGE_ABI, functionName: name, result: value } as never).slice(2), 'hex');
    switch (name) {
      case 'wrappedBalanceOf':
        return { ok: true, returnData: result(this.wrappedBalance(args[0] as Address, args[1] as Address)), logs: [], apply: () => undefined };
      case 'wrappedSupply': {
        const t = this.store.global.tokens[lower(args[0] as string)];
        return { ok: true, returnData: result(t ? t.minted - t.withdrawn : 0n), logs: [], apply: () => undefined };
      }
      case 'withdrawalDigest': {
        const w = this.store.withdrawal(this.idOf(args[0] as bigint));
        if (!w) return { ok: false, reason: `no withdrawal ${args[0] as bigint}` };
        return { ok: true, returnData: result(w.digest), logs: [], apply: () => undefined };
      }
      case 'transferWrapped':
        return this.transferWrapped(call, args, result(true));
    }
    const config = this.config;
    if (config === null) return { ok: false, reason: 'no external chain is configured for this network' };
    switch (name) {
      case 'attestDeposit':
        return this.attestDeposit(call, args);
      case 'withdraw':
        return this.withdraw(call, args, config, ctx, result);
      case 'signWithdrawal':
        return this.signWithdrawal(call, args, ctx);
      case 'attestRelease':
        return this.attestRelease(call, args);
      case 'signValset':
        return this.signValset(call, args, ctx);
      case 'attestValset':
        return this.attestValset(call, args);
      default:
        return { ok: false, reason: `unknown function ${name}` };
    }
  }

  private idOf(value: bigint): number {
    return value > MAX_ID ? Number.MAX_SAFE_INTEGER : Number(value);
  }

  /** Whether `address` is the operator of a bonded validator (whose attestations count). */
  isBonded(address: Address): boolean {
    return this.stake!.bonded().some((v) => lower(v.address) === address);
  }

  private attestDeposit(call: ModuleCall, args: readonly unknown[]): Decision {
    const [nonceArg, token, sender, recipient, amount] = args as [bigint, string, string, string, bigint];
    const g = this.store.global;
    if (!this.isBonded(call.from)) return { ok: false, reason: `${call.from} is not a bonded validator's operator` };
    if (nonceArg < 1n || nonceArg > MAX_ID) return { ok: false, reason: `deposit nonce ${nonceArg} is out of range` };
    const nonce = Number(nonceArg);
    if (nonce >= g.lowestUnminted + params.maxNonceAhead) {
      return { ok: false, reason: `deposit nonce ${nonce} is more than ${params.maxNonceAhead} beyond the lowest one not minted (${g.lowestUnminted})` };
    }
    if (amount <= 0n) return { ok: false, reason: 'a deposit of nothing cannot be attested' };
    const existing = this.store.deposit(nonce);
    if (existing?.minted) return { ok: false, reason: `deposit ${nonce} is already minted` };
    if (existing?.attestations.some((a) => a.attesters.includes(call.from))) return { ok: false, reason: `${call.from} already attested deposit ${nonce}` };
    const fields: DepositContent = { token: lower(token), sender: lower(sender), recipient: lower(recipient), amount };
    const content = depositContentHash(nonce, fields);
    return {
      ok: true,
      returnData: Buffer.alloc(0),
      logs: [log('DepositAttested', { nonce: nonceArg, validator: call.from, content }, [])],
      apply: () => {
        const d: DepositRecord = existing ?? { nonce, attestations: [], minted: null };
        const same = d.attestations.find((a) => a.content === content);
        if (same) same.attesters.push(call.from);
        else d.attestations.push({ content, fields, attesters: [call.from] });
        this.store.saveDeposit(d);
        if (!g.pendingDeposits.includes(nonce)) {
          g.pendingDeposits = [...g.pendingDeposits, nonce].sort((a, b) => a - b);
          this.store.saveGlobal();
        }
        this.touchedDeposits.add(nonce);
      },
    };
  }

  private withdraw(call: ModuleCall, args: readonly unknown[], config: BridgeConfig, ctx: BlockContext, result: (v: unknown) => Buffer): Decision {
    const [tokenArg, recipientArg, amount] = args as [string, string, bigint];
    const token = lower(tokenArg);
    const recipient = lower(recipientArg);
    const g = this.store.global;
    if (amount <= 0n) return { ok: false, reason: 'a withdrawal of nothing' };
    if (recipient === ZERO) return { ok: false, reason: 'the recipient is the zero address' };
    const t = g.tokens[token];
    const outstanding = t ? t.minted - t.withdrawn : 0n;
    if (amount > outstanding) {
      return { ok: false, reason: `only ${outstanding} of ${token === ZERO ? 'bridged native coin' : `token ${token}`} came over the bridge; ${amount} cannot leave` };
    }
    if (token === ZERO) {
      if (call.value !== amount) return { ok: false, reason: `a native withdrawal sends its amount as the call's value (sent ${call.value}, amount ${amount})` };
    } else {
      if (call.value !== 0n) return { ok: false, reason: 'a token withdrawal sends no value' };
      const balance = this.store.wrapped(token, call.from);
      if (balance < amount) return { ok: false, reason: `wrapped balance ${balance} of ${token} is below ${amount}` };
    }
    const id = g.nextWithdrawalId;
    const digest = withdrawalDigest(config, this.svcChainId, id, token, recipient, amount);
    return {
      ok: true,
      returnData: result(BigInt(id)),
      logs: [log('WithdrawalRequested', { id: BigInt(id), token, from: call.from }, [{ type: 'address', value: recipient }, { type: 'uint256', value: amount }])],
      apply: () => {
        if (token === ZERO) this.nativeWithdrawn += amount;
        else this.store.setWrapped(token, call.from, this.store.wrapped(token, call.from) - amount);
        this.tokenTotals(token).withdrawn += amount;
        g.nextWithdrawalId = id + 1;
        g.pendingWithdrawals = [...g.pendingWithdrawals, id];
        this.store.saveGlobal();
        this.store.saveWithdrawal({
          id, token, from: call.from, recipient, amount, height: ctx.height, digest,
          signatures: [], readyHeight: null, releaseAttesters: [], releasedHeight: null,
        });
      },
    };
  }

  private signWithdrawal(call: ModuleCall, args: readonly unknown[], ctx: BlockContext): Decision {
    const [idArg, signature] = args as [bigint, Hex];
    const w = this.store.withdrawals.get(this.idOf(idArg));
    if (!w) return { ok: false, reason: `no open withdrawal ${idArg}` };
    const valset = this.valset!;
    const pending = this.store.global.pendingValset;
    if (!valset.validators.includes(call.from) && !pending?.validators.includes(call.from)) {
      return { ok: false, reason: `${call.from} is not in the bridged validator set (nonce ${valset.nonce}) or the one pending` };
    }
    if (w.signatures.some((s) => s.validator === call.from)) return { ok: false, reason: `${call.from} already signed withdrawal ${w.id}` };
    const signer = core.recoverSigner(Buffer.from(w.digest.slice(2), 'hex'), Buffer.from(signature.slice(2), 'hex'));
    if (signer === null || `0x${signer.toString('hex')}` !== call.from) {
      return { ok: false, reason: `the signature is not ${call.from}'s of withdrawal ${w.id}'s digest (65 bytes r, s, v with v 27 or 28 and low s)` };
    }
    return {
      ok: true,
      returnData: Buffer.alloc(0),
      logs: [log('WithdrawalSigned', { id: idArg, validator: call.from }, [])],
      apply: () => {
        w.signatures.push({ validator: call.from, signature: lower(signature) });
        w.signatures.sort((a, b) => (a.validator < b.validator ? -1 : 1));
        if (w.readyHeight === null && this.signedEnough(valset, w.signatures.map((s) => s.validator))) {
          w.readyHeight = ctx.height;
          this.building.push({ kind: 'withdrawal-ready', height: ctx.height, id: w.id, token: w.token, recipient: w.recipient, amount: w.amount });
        }
        this.store.saveWithdrawal(w);
      },
    };
  }

  private attestRelease(call: ModuleCall, args: readonly unknown[]): Decision {
    const [idArg] = args as [bigint];
    const id = this.idOf(idArg);
    if (!this.isBonded(call.from)) return { ok: false, reason: `${call.from} is not a bonded validator's operator` };
    const w = this.store.withdrawals.get(id);
    if (!w) return { ok: false, reason: this.store.withdrawal(id) ? `withdrawal ${id} is already released` : `no withdrawal ${idArg}` };
    if (w.releaseAttesters.includes(call.from)) return { ok: false, reason: `${call.from} already attested the release of withdrawal ${id}` };
    return {
      ok: true,
      returnData: Buffer.alloc(0),
      logs: [log('ReleaseAttested', { id: idArg, validator: call.from }, [])],
      apply: () => {
        w.releaseAttesters.push(call.from);
        this.store.saveWithdrawal(w);
        this.touchedReleases.add(id);
      },
    };
  }

  private signValset(call: ModuleCall, args: readonly unknown[], ctx: BlockContext): Decision {
    const [nonceArg, signature] = args as [bigint, Hex];
    const pending = this.store.global.pendingValset;
    if (!pending || BigInt(pending.nonce) !== nonceArg) return { ok: false, reason: `no pending validator set ${nonceArg}${pending ? ` (the pending one is ${pending.nonce})` : ''}` };
    const current = this.valset!;
    if (!current.validators.includes(call.from)) return { ok: false, reason: `${call.from} is not in the bridged validator set (nonce ${current.nonce}), which signs the next` };
    if (pending.signatures.some((s) => s.validator === call.from)) return { ok: false, reason: `${call.from} already signed validator set ${pending.nonce}` };
    const signer = core.recoverSigner(Buffer.from(pending.digest.slice(2), 'hex'), Buffer.from(signature.slice(2), 'hex'));
    if (signer === null || `0x${signer.toString('hex')}` !== call.from) {
      return { ok: false, reason: `the signature is not ${call.from}'s of validator set ${pending.nonce}'s digest (65 bytes r, s, v with v 27 or 28 and low s)` };
    }
    return {
      ok: true,
      returnData: Buffer.alloc(0),
      logs: [log('ValsetSigned', { nonce: nonceArg, validator: call.from }, [])],
      apply: () => {
        const g = this.store.global;
        const p = g.pendingValset!;
        p.signatures = [...p.signatures, { validator: call.from, signature: lower(signature) }].sort((a, b) => (a.validator < b.validator ? -1 : 1));
        if (p.readyHeight === null && this.signedEnough(current, p.signatures.map((s) => s.validator))) {
          p.readyHeight = ctx.height;
          this.building.push({ kind: 'valset-ready', height: ctx.height, nonce: p.nonce, validators: p.validators, powers: p.powers });
        }
        this.store.saveGlobal();
      },
    };
  }

  private attestValset(call: ModuleCall, args: readonly unknown[]): Decision {
    const [nonceArg] = args as [bigint];
    if (!this.isBonded(call.from)) return { ok: false, reason: `${call.from} is not a bonded validator's operator` };
    const pending = this.store.global.pendingValset;
    if (!pending || BigInt(pending.nonce) !== nonceArg) return { ok: false, reason: `no pending validator set ${nonceArg}${pending ? ` (the pending one is ${pending.nonce})` : ''}` };
    if (pending.attesters.includes(call.from)) return { ok: false, reason: `${call.from} already attested validator set ${pending.nonce}` };
    return {
      ok: true,
      returnData: Buffer.alloc(0),
      logs: [log('ValsetAttested', { nonce: nonceArg, validator: call.from }, [])],
      apply: () => {
        const p = this.store.global.pendingValset!;
        p.attesters = [...p.attesters, call.from];
        this.store.saveGlobal();
        this.touchedValset = true;
      },
    };
  }

  private transferWrapped(call: ModuleCall, args: readonly unknown[], returnData: Buffer): Decision {
    const [tokenArg, toArg, amount] = args as [string, string, bigint];
    const token = lower(tokenArg);
    const to = lower(toArg);
    if (token === ZERO) return { ok: false, reason: 'the native coin is moved by plain transfers, not as a wrapped token' };
    if (to === ZERO) return { ok: false, reason: 'the recipient is the zero address' };
    const balance = this.store.wrapped(token, call.from);
    if (balance < amount) return { ok: false, reason: `wrapped balance ${balance} of ${token} is below ${amount}` };
    return {
      ok: true,
      returnData,
      logs: [log('WrappedTransfer', { token, from: call.from, to }, [{ type: 'uint256', value: amount }])],
      apply: () => {
        this.store.setWrapped(token, call.from, this.store.wrapped(token, call.from) - amount);
        this.store.setWrapped(token, to, this.store.wrapped(token, to) + amount);
      },
    };
  }
}

