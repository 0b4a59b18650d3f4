// The bridge's records as clients read them, shared by JSON-RPC (svc_getBridgeDeposit,
// svc_getBridgeWithdrawal) and the explorer (/bridge/...): amounts as decimal strings, heights as
// integers, addresses checksummed.
import { getAddress } from 'viem';
import type { BridgeEvent, DepositRecord, WithdrawalRecord } from '../modules/bridge/types.js';

export function depositView(d: DepositRecord) {
  const minted = d.minted ? d.attestations.find((a) => a.content === d.minted!.content) : undefined;
  return {
    nonce: d.nonce,
    status: d.minted ? 'minted' : 'pending',
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
