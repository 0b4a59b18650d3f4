// The bridge module's read views: every read that JSON-RPC (svc_getBridgeDeposit,
// svc_getBridgeWithdrawal), the explorer (/bridge/..., the bridge room) make of it, and the views of
// its records as clients read them: amounts as decimal strings, heights as integers, addresses
// checksummed. Serving code reads the bridge only through these.
import { getAddress } from 'viem';
import type { BridgeModule } from './module.js';
import type { BridgeConfig, BridgeEvent, DepositRecord, WithdrawalRecord } from './types.js';

export class BridgeQueries {
  constructor(private readonly module: BridgeModule) {}

  /** The external chain and contract the bridge watches; null when the bridge is inactive. */
  get config(): BridgeConfig | null {
    return this.module.config;
  }

  deposit(nonce: number): DepositRecord | undefined {
    return this.module.deposit(nonce);
  }

  /** Every deposit. */
  deposits(): DepositRecord[] {
    return this.module.deposits();
  }

  withdrawal(id: number): WithdrawalRecord | undefined {
    return this.module.withdrawal(id);
  }

  /** Every withdrawal. */
  withdrawals(): WithdrawalRecord[] {
    return this.module.withdrawals();
  }

  /** The bridge events of the committed block at `height` (none once a later block committed). */
  blockEvents(height: number): BridgeEvent[] {
    return this.module.lastBlockEvents.filter((e) => e.height === height);
  }
}

export function depositView(d: DepositRecord) {
  const minted = d.minted ? d.attestations.find((a) => a.content === d.minted!.content) : undefined;
  return {
    nonce: d.nonce,
    status: d.minted ? ('minted' as const) : ('pending' as const),
    mintedAt: d.minted ? d.minted.height : null,
    token: minted ? getAddress(minted.fields.token) : null,
    sender: minted ? getAddress(minted.fields.sender) : null,
    recipient: minted ? getAddress(minted.fields.recipient) : null,
    amount: minted ? minted.fields.amount.toString() : null,
    attestations: d.attestations.map((a) => ({
      content: a.content,
      token: getAddress(a.fields.token),
      sender: getAddress(a.fields.sender),
      recipient: getAddress(a.fields.recipient),
      amount: a.fields.amount.toString(),
      attesters: a.attesters.map((x) => getAddress(x)),
    })),
  };
}

/** Where a withdrawal stands: being signed, ready to relay, or released by the contract. */
export function withdrawalStatus(w: Pick<WithdrawalRecord, 'readyHeight' | 'releasedHeight'>): 'signing' | 'ready' | 'released' {
  return w.releasedHeight !== null ? 'released' : w.readyHeight !== null ? 'ready' : 'signing';
}

export function withdrawalView(w: WithdrawalRecord) {
  return {
    id: w.id,
    status: withdrawalStatus(w),
    token: getAddress(w.token),
    from: getAddress(w.from),
    recipient: getAddress(w.recipient),
    amount: w.amount.toString(),
    burnedAt: w.height,
    readyAt: w.readyHeight,
    releasedAt: w.releasedHeight,
    digest: w.digest,
    signatures: w.signatures.map((s) => ({ validator: getAddress(s.validator), signature: s.signature })),
    releaseAttesters: w.releaseAttesters.map((x) => getAddress(x)),
  };
}

export function bridgeEventView(e: BridgeEvent) {
  return {
    kind: e.kind,
    blockNumber: e.height,
    ...(e.nonce !== undefined ? { nonce: e.nonce } : {}),
    ...(e.id !== undefined ? { id: e.id } : {}),
    ...(e.token !== undefined ? { token: getAddress(e.token) } : {}),
    ...(e.recipient !== undefined ? { recipient: getAddress(e.recipient) } : {}),
    ...(e.amount !== undefined ? { amount: e.amount.toString() } : {}),
    ...(e.validators !== undefined ? { validators: e.validators.map((v) => getAddress(v)) } : {}),
    ...(e.powers !== undefined ? { powers: e.powers.map((p) => p.toString()) } : {}),
  };
}
