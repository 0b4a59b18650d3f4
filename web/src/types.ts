// The shapes of the explorer API's answers the pages read (docs/explorer.md).

export interface BlockItem {
  number: number;
  hash: string;
  timestamp: number;
  miner: string;
  transactionCount: number;
  gasUsed: string;
  gasLimit: string;
  baseFeePerGas: string | null;
  burntFees: string;
  size: number;
}

export interface Block extends BlockItem {
  parentHash: string;
  stateRoot: string;
  transactionsRoot: string;
  receiptsRoot: string;
  extraData: string;
  transactions: TxItem[];
}

export interface TxItem {
  hash: string;
  blockNumber: number;
  index: number;
  timestamp: number;
  status: string;
  from: string;
  to: string | null;
  createdContract: string | null;
  value: string;
  gasUsed: string;
  gasPrice: string;
  fee: string;
  method: string;
  roles?: string[];
}

export interface Log {
  address: string;
  topics: string[];
  data: string;
  logIndex: number;
}

export interface TokenTransfer {
  token: string;
  tokenName: string | null;
  tokenSymbol: string | null;
  decimals: number | null;
  type: string;
  from: string;
  to: string;
  value: string | null;
  tokenId: string | null;
  transactionHash: string;
  blockNumber: number;
  logIndex: number;
  timestamp: number;
}

export interface Tx {
  hash: string;
  status: string;
  blockNumber: number | null;
  blockHash: string | null;
  index: number | null;
  timestamp: number | null;
  confirmations?: number;
  from: string;
  to: string | null;
  createdContract: string | null;
  value: string;
  nonce: number;
  type: number;
  gasLimit: string;
  gasUsed?: string;
  gasPrice?: string;
  maxFeePerGas?: string | null;
  maxPriorityFeePerGas?: string | null;
  fee?: string;
  input: string;
  method: string;
  revertReason?: string | null;
  logs?: Log[];
  tokenTransfers?: TokenTransfer[];
}

export interface Token {
  address: string;
  type: string;
  name: string | null;
  symbol: string | null;
  decimals: number | null;
  holders: number;
  transfers: number;
  firstBlock: number;
}

export interface AddressInfo {
  address: string;
  balance: string;
  nonce: number;
  isContract: boolean;
  codeSize: number;
  creator: string | null;
  creationTransaction: string | null;
  token: Token | null;
  validator: { moniker: string; status: string; stake: string } | null;
  transactions: number;
  tokenTransfers: number;
}

export interface Counters {
  transactions: number;
  tokenTransfers: number;
  blocksProduced: number;
  firstBlock: number | null;
  lastBlock: number | null;
}

export interface Validator {
  address: string;
  moniker: string;
  totalStake: string;
  contributionScore: number;
  commission: number;
  status: string;
  uptime: number;
  votingPower: string;
}

export interface ValidatorFull extends Validator {
  rank?: number;
  selfStake: string;
  delegatedStake: string;
  delegatorCount: number;
  scoreBreakdown: Record<string, number>;
  maxCommission: number;
  blocksProduced: number;
  blocksMissed: number;
  totalRewards: string;
  accumulatedCommission: string;
  registeredAt: number;
  lastActiveAt: number;
  jailedUntil: number;
  slashes: { height: number; fractionBps: number; burned: string; reason: string }[];
}

export interface Chart {
  chart: string;
  unit: string;
  points: { date: string; value: string }[];
}

export interface SearchHit {
  type: 'block' | 'transaction' | 'address' | 'token' | 'validator';
  number?: number;
  hash?: string;
  address?: string;
  moniker?: string;
  blockNumber?: number;
  token?: Token;
}

// ---- governance and the treasury (/governance/*, /treasury) ----

export type ProposalContent =
  | { changes: { name: string; currentValue: string | null; newValue: string; unit: string | null }[] }
  | { modelId: string; tier?: string; dims?: number; weights?: { sha256: string; size: number }; tokenizer?: { sha256: string; size: number } }
  | { recipient: string; amount: string; vestingEpochs: number }
  | Record<string, never>;

export interface Proposal {
  id: number;
  kind: 'parameter-change' | 'model-approval' | 'model-retirement' | 'treasury-spend' | 'text';
  title: string;
  description?: string;
  proposer: string;
  status: string;
  content: ProposalContent;
  submitBlock: number;
  submitTime: number;
  depositEndTime: number;
  totalDeposit: string;
  minDeposit: string;
  depositors: number;
  votingStartBlock: number | null;
  votingStartTime: number | null;
  votingEndTime: number | null;
  tally: {
    yes: string;
    abstain: string;
    no: string;
    noWithVeto: string;
    totalVoted: string;
    bonded: string | null;
    final: boolean;
    percentages: { yes: number; abstain: number; no: number; noWithVeto: number };
    turnout: number | null;
  };
  rules: { quorum: number; threshold: number; vetoThreshold: number };
  voters: number;
  finalBlock: number | null;
  finalTime: number | null;
  deposits: 'refunded' | 'burned' | null;
  execution: { block: number; result: string; detail: string; appliesAtEpoch: number | null } | null;
}

export interface ProposalVote {
  voter: string;
  option: string;
  block: number;
}

export interface ProposalDeposit {
  depositor: string;
  amount: string;
}

export interface GovernanceParams {
  blockNumber: number;
  epoch: number;
  params: { name: string; value: string; min: string; max: string; unit: string; pending: { proposalId: number; value: string; appliesAtEpoch: number }[] }[];
}

export interface Treasury {
  address: string;
  balance: string;
  inflows: Record<string, string>;
  totalInflows: string;
  outflows: Record<string, string>;
  totalOutflows: string;
  pendingSpends: { proposalId: number; recipient: string; amount: string; paid: string; parts: number; partsPaid: number; nextEpoch: number }[];
  pendingSpendsTotal: string;
  spendsPaid: number;
  blockNumber: number;
}

// ---- the bridge (/bridge/*) ----

export interface BridgeStatus {
  active: boolean;
  validatorCount: number;
  threshold: number;
  totalDeposits: number;
  totalWithdrawals: number;
  pendingDeposits: number;
  pendingWithdrawals: number;
  totalValueLocked: string;
  externalChainId: number | null;
  contract: string | null;
  confirmations: number | null;
}

export interface BridgeDeposit {
  nonce: number;
  status: 'pending' | 'minted';
  mintedAt: number | null;
  token: string | null;
  sender: string | null;
  recipient: string | null;
  amount: string | null;
  attestations: { content: string; token: string; sender: string; recipient: string; amount: string; attesters: string[] }[];
}

export interface BridgeWithdrawal {
  id: number;
  status: 'signing' | 'ready' | 'released';
  token: string;
  from: string;
  recipient: string;
  amount: string;
  burnedAt: number;
  readyAt: number | null;
  releasedAt: number | null;
  digest: string;
  signatures: { validator: string; signature: string }[];
  releaseAttesters: string[];
}
