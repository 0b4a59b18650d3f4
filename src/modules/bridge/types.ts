// The bridge module's records and views (docs/bridge.md). Amounts are bigints of the smallest unit;
// deposit nonces and withdrawal ids are the external contract's, kept below 2^53.
import type { Address } from '../kernel/records.js';
export type { Address };

/** The external chain the bridge connects to: part of the network's genesis. */
export interface BridgeConfig {
  /** The external chain's id (the contract's digests commit to it). */
  chainId: number;
  /** SvcBridge's address there (lowercase). */
  contract: Address;
  /** Blocks a deposit must be deep on the external chain before validators attest it. */
  confirmations: number;
  /** The external block the contract was deployed in (where watchers start reading). */
  fromBlock: number;
}

/** The validator set the external contract checks signatures against, as the module recorded it. */
export interface BridgeValset {
  nonce: number;
  /** Operator addresses, ascending (the contract's order). */
  validators: Address[];
  powers: bigint[];
}

/** Per external token (0x000…0 for ETH): what crossed. */
export interface TokenTotals {
  /** Minted on svc for attested deposits. */
  minted: bigint;
  /** Burned on svc by withdrawals. */
  withdrawn: bigint;
  /** Of those, released by the external contract (as attested). */
  released: bigint;
}

/** A set recorded at an epoch start, to be signed by the current set and relayed with updateValset. */
export interface PendingValset extends BridgeValset {
  /** SvcBridge.valsetDigest(validators, powers, nonce). */
  digest: `0x${string}`;
  recordedHeight: number;
  /** Signatures of members of the current set. */
  signatures: WithdrawalSignature[];
  readyHeight: number | null;
  /** Validators that saw the contract's ValsetUpdated event for this nonce at the confirmation depth. */
  attesters: Address[];
}

export interface BridgeGlobal {
  config: BridgeConfig | null;
  /** The set the external contract holds, as attested (the genesis set until an update is). */
  valset: BridgeValset | null;
  /** The next set, once recorded and until the contract's update is attested. */
  pendingValset: PendingValset | null;
  nextWithdrawalId: number;
  /** Deposits minted, withdrawals released (counts). */
  depositsMinted: number;
  withdrawalsReleased: number;
  /** Deposit nonces attested but not minted, ascending. */
  pendingDeposits: number[];
  /** Withdrawal ids burned but not released, ascending. */
  pendingWithdrawals: number[];
  /** The lowest deposit nonce not yet minted (attestations beyond it + maxNonceAhead are refused). */
  lowestUnminted: number;
  tokens: Record<Address, TokenTotals>;
}

/** What a deposit event says (after its nonce). */
export interface DepositContent {
  token: Address;
  sender: Address;
  recipient: Address;
  amount: bigint;
}

/** One content attested for a nonce, and by whom (validators may disagree when the external chain reorganised). */
export interface DepositAttestation {
  /** keccak256(abi.encode(nonce, token, sender, recipient, amount)). */
  content: `0x${string}`;
  fields: DepositContent;
  /** Operator addresses, in the order they attested. */
  attesters: Address[];
}

export interface DepositRecord {
  nonce: number;
  attestations: DepositAttestation[];
  /** The content minted and where, once decided. */
  minted: { content: `0x${string}`; height: number } | null;
}

export interface WithdrawalSignature {
  validator: Address;
  /** 65 bytes r ‖ s ‖ v (v 27/28), low s. */
  signature: `0x${string}`;
}

export interface WithdrawalRecord {
  id: number;
  token: Address;
  from: Address;
  recipient: Address;
  amount: bigint;
  /** Block that burned it. */
  height: number;
  /** The external contract's withdrawalDigest(id, token, recipient, amount). */
  digest: `0x${string}`;
  signatures: WithdrawalSignature[];
  /** When the signers first held more than 2/3 of the bridged set's power. */
  readyHeight: number | null;
  /** Validators that saw the contract's Withdrawal event at the confirmation depth. */
  releaseAttesters: Address[];
  releasedHeight: number | null;
}

/** What happened in a block, for the explorer's feed and the node's agent. */
export interface BridgeEvent {
  kind: 'deposit-minted' | 'withdrawal-ready' | 'withdrawal-released' | 'valset-recorded' | 'valset-ready' | 'valset-updated';
  height: number;
  /** A deposit's nonce, or a set's. */
  nonce?: number;
  /** A withdrawal's id. */
  id?: number;
  token?: Address;
  recipient?: Address;
  amount?: bigint;
  /** A set's validators and powers. */
  validators?: Address[];
  powers?: bigint[];
}

/** svc_getBridgeStatus (spec "Bridge status"). */
export interface BridgeStatus {
  active: boolean;
  validatorCount: number;
  threshold: number;
  totalDeposits: number;
  totalWithdrawals: number;
  pendingDeposits: number;
  pendingWithdrawals: number;
  totalValueLocked: string;
}
