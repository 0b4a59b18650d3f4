// The governance module's records and the shapes its views take (docs/governance.md).
import type { Address } from '../kernel/records.js';

export type { Address };

/** What a proposal does when it passes. */
export type ProposalKind = 'parameter-change' | 'model-approval' | 'model-retirement' | 'treasury-spend' | 'text';

/**
 * Where a proposal is (Cosmos x/gov v1's statuses, plus the reason a failed one failed):
 * deposit-period -> voting-period -> passed | rejected | vetoed | no-quorum; deposit-period -> expired.
 */
export type ProposalStatus = 'deposit-period' | 'voting-period' | 'passed' | 'rejected' | 'vetoed' | 'no-quorum' | 'expired';

/** Vote options, numbered as Cosmos x/gov's VoteOption (1..4). */
export const VOTE_OPTIONS = ['yes', 'abstain', 'no', 'no-with-veto'] as const;
export type VoteOption = (typeof VOTE_OPTIONS)[number];

/** A parameter change: `<module>.<key>` (modules/governable.ts) and its new value. */
export interface ParamChange {
  name: string;
  value: bigint;
}

/** A file of an approved model, pinned by its SHA-256 (lower-case hex) and size in bytes. */
export interface PinnedFileRecord {
  sha256: string;
  size: number;
}

export type ModelTierName = 'Hot' | 'Warm' | 'Cold';

/** What a model approval pins: the files, the output size and the GPU tier it needs. */
export interface ModelApproval {
  modelId: string;
  tier: ModelTierName;
  dims: number;
  weights: PinnedFileRecord;
  tokenizer: PinnedFileRecord;
}

/** A treasury spend: `amount` to `recipient`, at once (vestingEpochs 0) or in equal parts at the start of each of the next vestingEpochs epochs. */
export interface TreasurySpend {
  recipient: Address;
  amount: bigint;
  vestingEpochs: number;
}

export type ProposalContent =
  | { kind: 'parameter-change'; changes: ParamChange[] }
  | { kind: 'model-approval'; model: ModelApproval }
  | { kind: 'model-retirement'; modelId: string }
  | { kind: 'treasury-spend'; spend: TreasurySpend }
  | { kind: 'text' };

/** Stake behind each option, in wei of bonded tokens. */
export interface TallyResult {
  yes: bigint;
  abstain: bigint;
  no: bigint;
  noWithVeto: bigint;
}

/** What passing did (set when the proposal passed). */
export interface ExecutionRecord {
  height: number;
  /** What happened: the changes queued for an epoch, the model approved, the spend queued; or why it could not be carried out. */
  result: 'applied' | 'failed';
  detail: string;
  /** Parameter changes: the epoch they apply from. */
  appliesAtEpoch?: number;
}

/** A proposal, as stored under governance/proposal/<id>. */
export interface ProposalRecord {
  id: number;
  proposer: Address;
  title: string;
  description: string;
  content: ProposalContent;
  status: ProposalStatus;
  submitHeight: number;
  submitTime: number;
  depositEndTime: number;
  totalDeposit: bigint;
  /** Distinct depositors (their amounts are records of their own). */
  depositors: number;
  votingStartHeight?: number;
  votingStartTime?: number;
  votingEndTime?: number;
  /** Votes cast (the last vote of a voter counts). */
  voters: number;
  /** The final tally, once voting ended. */
  tally?: TallyResult;
  /** Bonded stake when the vote was tallied (the quorum's base). */
  bondedAtTally?: bigint;
  finalHeight?: number;
  finalTime?: number;
  /** What became of the deposits once the proposal left its deposit or voting period. */
  deposits?: 'refunded' | 'burned';
  execution?: ExecutionRecord;
}

/** One depositor's deposit on a proposal (governance/deposit/<id>/<depositor>). */
export interface DepositRecord {
  proposalId: number;
  depositor: Address;
  amount: bigint;
}

/** One voter's vote (governance/vote/<id>/<voter>): the last one cast in the voting period counts. */
export interface VoteRecord {
  proposalId: number;
  voter: Address;
  option: VoteOption;
  height: number;
}

/** A parameter change waiting for the epoch it applies from. */
export interface PendingChange {
  proposalId: number;
  appliesAtEpoch: number;
  changes: ParamChange[];
}

/** A treasury spend with parts still to pay. */
export interface PendingSpend {
  proposalId: number;
  recipient: Address;
  amount: bigint;
  paid: bigint;
  /** Parts in all (1 for a spend paid at once) and parts paid. */
  parts: number;
  partsPaid: number;
  /** The epoch of the next part. */
  nextEpoch: number;
}

/** Where the treasury's tokens came from and went, wei (the treasury account's balance = inflows - outflows). */
export interface TreasuryAccounts {
  /** By source: blockRewards (staking's share of each block reward), taskFees (public task fees' treasury part), other modules by name. */
  inflows: Record<string, bigint>;
  /** By use: spends (executed treasury spends). */
  outflows: Record<string, bigint>;
  spendsPaid: number;
}

/** The module's global record (governance/global). */
export interface GovernanceGlobal {
  nextProposalId: number;
  /** Proposals in their deposit or voting period, by id. */
  active: number[];
  /** Parameter values changed by governance, `<module>.<key>` -> value (the rest are the genesis values). */
  params: Record<string, bigint>;
  /** Where epochs at the current length start counting (set by a change of staking.epochLengthBlocks). */
  epochAnchor?: { height: number; epoch: number };
  pendingChanges: PendingChange[];
  pendingSpends: PendingSpend[];
  treasury: TreasuryAccounts;
  /** Deposits held by the module (the module account's balance). */
  depositsHeld: bigint;
  depositsBurned: bigint;
  depositsRefunded: bigint;
}

/** A governance event of a block, for subscribers (svcProposals, the live feed). */
export interface ProposalEvent {
  type: 'submitted' | 'deposit' | 'voting-started' | 'vote' | 'finished' | 'executed' | 'param-changed' | 'spend-paid' | 'expired';
  proposalId: number;
  height: number;
  status: ProposalStatus;
  /** Type-specific facts: depositor and amount, voter and option, tally, parameter and values, recipient and amount. */
  detail: Record<string, unknown>;
}
