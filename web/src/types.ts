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
