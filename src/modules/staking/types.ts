// Shapes of the staking ledger: addresses, stored records, read-only views, events and results.

/** A lowercase 0x-prefixed 20-byte address (40 hex digits). */
export type Address = `0x${string}`;

/**
 * `active`: in the current active set. `inactive`: bonded but outside the active set (not chosen
 * at the last epoch end, or newly registered or unjailed); still accepts delegations, as Cosmos'
 * unbonded validators do. `jailed`: removed by a slash or by self stake below the minimum.
 */
export type ValidatorStatus = 'active' | 'inactive' | 'jailed';

const ADDRESS = /^0x[0-9a-f]{40}$/;

/** Whether a value is a lowercase 0x-prefixed 40-hex address. */
export function isAddress(value: unknown): value is Address {
  return typeof value === 'string' && ADDRESS.test(value);
}

/** One slash applied to a validator, kept as its history. */
export interface SlashRecord {
  height: number;
  infractionHeight: number;
  fractionBps: number;
  tokensBurned: bigint;
  unbondingBurned: bigint;
  reason: string;
}

/** The rolling record of missed blocks over the downtime window (Cosmos x/slashing's bitmap). */
export interface SigningWindow {
  /** Bit i (of byte i>>3, bit i&7) is set when the block at window position i was missed. */
  bitmap: Uint8Array;
  /** Blocks counted since the window was last reset; the next block goes to position index % size. */
  index: number;
  /** Set bits in the bitmap. */
  missed: number;
  /** The window size (signedBlocksWindow) the bitmap was made for; a window of another size starts afresh. */
  size: number;
  /**
   * The index from which downtime is judged: a full window must be counted after it. A downtime
   * jail sets it to the index it jailed at (Cosmos x/slashing resets its window there so that a
   * returning validator is not jailed again at once); the bitmap stays, so uptime keeps showing
   * the blocks the validator missed.
   */
  judgedFrom: number;
}

/** A validator as the ledger stores it. */
export interface ValidatorRecord {
  operator: Address;
  moniker: string;
  /** The Ed25519 public key (0x + 64 hex) the validator signs consensus votes with; absent for one registered without it (solo networks). */
  consensusKey?: string;
  commissionBps: number;
  maxCommissionBps: number;
  maxChangeBpsPerDay: number;
  lastCommissionChangeAt: number;
  /** Self stake plus delegations, less slashes. */
  tokens: bigint;
  totalShares: bigint;
  status: ValidatorStatus;
  jailedUntil: number;
  registeredAt: number;
  lastActiveAt: number;
  /** Commission earned and not yet claimed by the operator. */
  commission: bigint;
  /** Every reward credited to the validator, commission and delegators' part together. */
  totalRewards: bigint;
  /** Cumulative delegators' reward per share, scaled by REWARD_SCALE. */
  rewardPerShare: bigint;
  /** Delegators' rewards credited through rewardPerShare and not yet settled into a delegation. */
  outstandingRewards: bigint;
  blocksProduced: number;
  blocksMissed: number;
  window: SigningWindow;
  slashes: SlashRecord[];
}

/** A delegation (delegator -> validator) as the ledger stores it. */
export interface DelegationRecord {
  delegator: Address;
  validator: Address;
  shares: bigint;
  /** The validator's rewardPerShare when this delegation's rewards were last settled. */
  rewardCheckpoint: bigint;
  /** Rewards settled and not yet claimed. */
  accrued: bigint;
}

/** Tokens leaving a validator, paid out at completesAt and slashable until then. */
export interface UnbondingRecord {
  id: number;
  delegator: Address;
  validator: Address;
  initialBalance: bigint;
  balance: bigint;
  creationHeight: number;
  completesAt: number;
}

/** One member of an epoch's validator set. */
export interface EpochMember {
  address: Address;
  tokens: bigint;
  votingPower: bigint;
}

/** The active set of one epoch, frozen when the epoch started. */
export interface EpochSnapshot {
  epoch: number;
  startHeight: number;
  validators: EpochMember[];
}

/** What an operator chooses at registration. */
export interface ValidatorDescription {
  moniker: string;
  /** The Ed25519 consensus public key, 0x + 64 lowercase hex (CometBFT networks). */
  consensusKey?: string;
  commissionBps: number;
  maxCommissionBps: number;
  maxChangeBpsPerDay: number;
}

/** A validator as queries show it (a copy; changing it changes nothing). */
export interface ValidatorView {
  address: Address;
  operator: Address;
  moniker: string;
  consensusKey?: string;
  commissionBps: number;
  maxCommissionBps: number;
  maxChangeBpsPerDay: number;
  lastCommissionChangeAt: number;
  tokens: bigint;
  totalShares: bigint;
  selfStake: bigint;
  /** tokens - selfStake (share rounding residue included). */
  delegatedStake: bigint;
  /** Delegations other than the operator's own. */
  delegatorCount: number;
  votingPower: bigint;
  status: ValidatorStatus;
  jailedUntil: number;
  registeredAt: number;
  lastActiveAt: number;
  commission: bigint;
  totalRewards: bigint;
  blocksProduced: number;
  blocksMissed: number;
  /** Signed share of the blocks counted in the current downtime window (10000 when none counted). */
  uptimeBps: number;
  missedInWindow: number;
  slashes: SlashRecord[];
}

/** A delegation as queries show it. */
export interface DelegationView {
  delegator: Address;
  validator: Address;
  shares: bigint;
  /** Tokens the shares are worth now (floored). */
  amount: bigint;
  /** Settled plus not yet settled rewards. */
  pendingRewards: bigint;
}

/** An unbonding entry as queries show it. */
export type UnbondingView = Readonly<UnbondingRecord>;

/** svc_getStakeInfo's numbers for one address. */
export interface StakeInfo {
  stakedAmount: bigint;
  unstakingAmount: bigint;
  /** Latest completion time of the address's entries not yet withdrawn; 0 when none. */
  unstakingCompletesAt: number;
  /** Delegation rewards plus, for an operator, unclaimed commission. */
  pendingRewards: bigint;
}

/** Module-wide sums. */
export interface StakingTotals {
  totalStaked: bigint;
  totalUnbonding: bigint;
  /** Settled delegation rewards plus every validator's outstanding (unsettled) delegators' rewards. */
  totalUnclaimedRewards: bigint;
  totalCommission: bigint;
  /** Reward remainders no delegation can claim (see ledger.ts). */
  dust: bigint;
  /** Every token slashed since genesis. */
  burned: bigint;
}

/** Events for indexers and logs; amounts in wei, heights in blocks, times in seconds. */
export type LedgerEvent =
  | {
      type: 'ValidatorRegistered';
      validator: Address;
      moniker: string;
      commissionBps: number;
      maxCommissionBps: number;
      maxChangeBpsPerDay: number;
      selfStake: bigint;
      shares: bigint;
      height: number;
    }
  | { type: 'Delegated'; delegator: Address; validator: Address; amount: bigint; shares: bigint; height: number }
  | {
      type: 'Undelegated';
      delegator: Address;
      validator: Address;
      amount: bigint;
      shares: bigint;
      unbondingId: number;
      height: number;
      completesAt: number;
    }
  | { type: 'Withdrawn'; delegator: Address; validator: Address; amount: bigint; unbondingId: number; completesAt: number; at: number }
  | { type: 'RewardsClaimed'; delegator: Address; validator: Address; rewards: bigint; commission: bigint }
  | { type: 'RewardsDistributed'; validator: Address; amount: bigint; commission: bigint }
  | { type: 'CommissionChanged'; validator: Address; oldBps: number; newBps: number; at: number }
  | { type: 'Unjailed'; validator: Address; at: number }
  | {
      type: 'Slashed';
      validator: Address;
      fractionBps: number;
      infractionHeight: number;
      height: number;
      tokensBurned: bigint;
      unbondingBurned: bigint;
      reason: string;
    }
  | { type: 'Jailed'; validator: Address; until: number; reason: string };

/** Tokens the module account must send out because of an operation. */
export interface Payout {
  to: Address;
  amount: bigint;
}

/** An operation that was refused; the ledger is unchanged. */
export interface Refusal {
  ok: false;
  reason: string;
}

/** An operation that was applied. */
export type Applied<T extends object = object> = { ok: true; events: LedgerEvent[]; payouts: Payout[] } & T;

export type LedgerResult<T extends object = object> = Applied<T> | Refusal;

/** A validator's vote in CometBFT's decided last commit (its BlockIDFlag): for the block, absent, or for nil. */
export type CommitVoteFlag = 'commit' | 'absent' | 'nil';

/** One entry of a block's decided last commit: the validator (its operator address) and what the commit says of it. */
export interface CommitVote {
  validator: Address;
  flag: CommitVoteFlag;
}

/** What recordBlock did: downtime slashes it applied and the validators it jailed for them. */
export interface BlockRecord {
  events: LedgerEvent[];
  jailed: Address[];
  burned: bigint;
}

/** What an epoch change did to the active set. */
export interface EpochChange {
  snapshot: EpochSnapshot;
  joined: Address[];
  left: Address[];
}

/** One key/value record of the persisted ledger; value null means "delete the key". */
export interface LedgerRecord {
  key: Buffer;
  value: Buffer | null;
}
