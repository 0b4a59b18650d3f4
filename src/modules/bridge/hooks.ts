// The bridge's block hooks, driven by the block's records alone. beginBlock: the first block records
// the genesis configuration and set; an epoch's first block records a new set when the bonded
// validators moved away from the bridged one. endBlock: a deposit content attested by validators
// holding more than 2/3 of bonded stake (stake as the block ends) is minted once; a release
// attested the same way settles its withdrawal; a new set attested the same way replaces the
// bridged one; the native coin withdrawn in the block leaves the supply.
import type { Hex } from 'viem';
import { system } from '../../params.js';
import { addressBuffer, noChange, type BlockInfo, type HookResult } from '../kernel/module.js';
import { openWithdrawals, tokenTotals, type BridgeContext } from './context.js';
import { bridgedSet, passesThreshold, signedEnough, valsetDigest, valsetMoved } from './rules.js';
import type { Address, BridgeValset, DepositContent, DepositRecord, PendingValset, WithdrawalRecord } from './types.js';

const BRIDGE: Address = system.bridgeAddress as Address;
const ZERO: Address = '0x0000000000000000000000000000000000000000';
const lower = (a: string): Address => a.toLowerCase() as Address;

/**
 * The first block records the genesis configuration and set, so the state root commits to them.
 * An epoch's first block (after staking opened the epoch) records a new set when the bonded
 * validators moved away from the bridged one; it replaces a pending set that the threshold has
 * not signed yet (that one cannot have been relayed; the contract takes any higher nonce, so its
 * nonce is simply skipped).
 */
export function bridgeBeginBlock(bridge: BridgeContext, block: BlockInfo): HookResult {
  const g = bridge.store.global;
  if (g.config === null && bridge.genesis) {
    g.config = bridge.genesis.config;
    g.valset = bridge.genesis.valset;
    bridge.store.saveGlobal();
  }
  // A pending set already signed by the threshold may be on the contract: it is not replaced
  // until its update is attested (the next set is then recorded from the set it became).
  if (g.config && g.valset && block.isEpochStart && block.height > 1 && g.pendingValset?.readyHeight == null) {
    const base = g.pendingValset ?? g.valset;
    const next = bridgedSet(bridge.keepers.stake.bonded(), base.nonce + 1);
    if (next.validators.length > 0 && valsetMoved(g.valset, next) && (g.pendingValset === null || valsetMoved(g.pendingValset, next))) {
      g.pendingValset = {
        ...next,
        digest: valsetDigest(g.config, bridge.svcChainId, next),
        recordedHeight: block.height,
        signatures: [],
        readyHeight: null,
        attesters: [],
      };
      bridge.store.saveGlobal();
      bridge.event({ kind: 'valset-recorded', height: block.height, nonce: next.nonce, validators: next.validators, powers: next.powers });
    }
  }
  return noChange();
}

/** Deposits and releases attested in the block are decided; native coin withdrawn in it is burned. */
export function bridgeEndBlock(bridge: BridgeContext, block: BlockInfo): HookResult {
  const result = noChange();
  const touched = bridge.block.touchedDeposits.size + bridge.block.touchedReleases.size + (bridge.block.touchedValset ? 1 : 0);
  if (touched > 0) {
    const bonded = bondedStake(bridge);
    const total = [...bonded.values()].reduce((a, b) => a + b, 0n);
    const power = (attesters: readonly Address[]) => attesters.reduce((sum, a) => sum + (bonded.get(a) ?? 0n), 0n);
    for (const nonce of [...bridge.block.touchedDeposits].sort((a, b) => a - b)) {
      const d = bridge.store.deposits.get(nonce);
      if (!d || d.minted) continue;
      const winner = d.attestations.find((a) => passesThreshold(power(a.attesters), total));
      if (winner) mint(bridge, d, winner.content, winner.fields, block, result);
    }
    for (const id of [...bridge.block.touchedReleases].sort((a, b) => a - b)) {
      const w = bridge.store.withdrawals.get(id);
      if (!w || w.releasedHeight !== null) continue;
      if (passesThreshold(power(w.releaseAttesters), total)) release(bridge, w, block);
    }
    const pending = bridge.store.global.pendingValset;
    if (bridge.block.touchedValset && pending && passesThreshold(power(pending.attesters), total)) switchValset(bridge, pending, block);
  }
  if (bridge.block.nativeWithdrawn > 0n) {
    result.moves.push({ from: addressBuffer(BRIDGE), amount: bridge.block.nativeWithdrawn });
    result.burned += bridge.block.nativeWithdrawn;
  }
  bridge.block.touchedDeposits.clear();
  bridge.block.touchedReleases.clear();
  bridge.block.touchedValset = false;
  bridge.block.nativeWithdrawn = 0n;
  return result;
}

function bondedStake(bridge: BridgeContext): Map<Address, bigint> {
  return new Map(bridge.keepers.stake.bonded().map((v) => [lower(v.address), v.tokens]));
}

function mint(bridge: BridgeContext, d: DepositRecord, content: Hex, f: DepositContent, block: BlockInfo, result: HookResult): void {
  const g = bridge.store.global;
  if (f.token === ZERO) {
    result.moves.push({ to: addressBuffer(f.recipient), amount: f.amount });
    result.minted += f.amount;
  } else {
    bridge.store.setWrapped(f.token, f.recipient, bridge.store.wrapped(f.token, f.recipient) + f.amount);
  }
  tokenTotals(bridge.store, f.token).minted += f.amount;
  d.minted = { content, height: block.height };
  bridge.store.saveDeposit(d);
  g.depositsMinted += 1;
  g.pendingDeposits = g.pendingDeposits.filter((n) => n !== d.nonce);
  while (g.lowestUnminted === d.nonce || bridge.store.deposit(g.lowestUnminted)?.minted) g.lowestUnminted += 1;
  bridge.store.saveGlobal();
  bridge.event({ kind: 'deposit-minted', height: block.height, nonce: d.nonce, token: f.token, recipient: f.recipient, amount: f.amount });
}

/** The contract took the pending set (attested): it becomes the set signatures are weighed against. */
function switchValset(bridge: BridgeContext, pending: PendingValset, block: BlockInfo): void {
  const g = bridge.store.global;
  const set: BridgeValset = { nonce: pending.nonce, validators: pending.validators, powers: pending.powers };
  g.valset = set;
  g.pendingValset = null;
  bridge.store.saveGlobal();
  bridge.event({ kind: 'valset-updated', height: block.height, nonce: set.nonce, validators: set.validators, powers: set.powers });
  // Withdrawals waiting for signatures are weighed against the new set.
  for (const w of openWithdrawals(bridge.store)) {
    if (w.readyHeight === null && signedEnough(set, w.signatures.map((x) => x.validator))) {
      w.readyHeight = block.height;
      bridge.store.saveWithdrawal(w);
      bridge.event({ kind: 'withdrawal-ready', height: block.height, id: w.id, token: w.token, recipient: w.recipient, amount: w.amount });
    }
  }
}

function release(bridge: BridgeContext, w: WithdrawalRecord, block: BlockInfo): void {
  const g = bridge.store.global;
  w.releasedHeight = block.height;
  bridge.store.saveWithdrawal(w);
  tokenTotals(bridge.store, w.token).released += w.amount;
  g.withdrawalsReleased += 1;
  g.pendingWithdrawals = g.pendingWithdrawals.filter((n) => n !== w.id);
  bridge.store.saveGlobal();
  bridge.event({ kind: 'withdrawal-released', height: block.height, id: w.id, token: w.token, recipient: w.recipient, amount: w.amount });
}
