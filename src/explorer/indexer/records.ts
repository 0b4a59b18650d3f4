// What the index holds, and where: one repository per entity in the "explorer" column family. The
// records are written natively (crates/svc-index, same layouts); keys are prefix ++ big-endian
// parts, so scans walk blocks in order (newest first when reversed).
import type { Chain } from '../../native/index.js';
import { be, Repository } from '../store.js';

export type Hex = `0x${string}`;
export type TokenType = 'ERC-20' | 'ERC-721' | 'ERC-1155';

/** A transaction as lists show it. */
export interface TxSummary {
  hash: Hex;
  blockNumber: number;
  index: number;
  timestamp: number;
  from: Hex;
  to: Hex | null;
  /** Address of the contract it created. */
  created: Hex | null;
  value: bigint;
  /** 1 success, 0 reverted. */
  status: number;
  gasUsed: bigint;
  gasPrice: bigint;
  /** First four bytes of the input ("0x" for plain transfers). */
  method: Hex;
}

/** How an address took part in a transaction, with the transaction's summary. */
export interface AddressRole {
  roles: ('from' | 'to' | 'created' | 'token')[];
  tx: TxSummary;
}

export interface TokenRecord {
  address: Hex;
  type: TokenType;
  name: string | null;
  symbol: string | null;
  decimals: number | null;
  holders: number;
  transfers: number;
  firstBlock: number;
}

export interface TransferRecord {
  token: Hex;
  type: TokenType;
  from: Hex;
  to: Hex;
  /** Amount (ERC-20, ERC-1155) or 1 (ERC-721). */
  value: bigint;
  tokenId: bigint | null;
  txHash: Hex;
  blockNumber: number;
  logIndex: number;
  timestamp: number;
}

export interface InstanceRecord {
  token: Hex;
  tokenId: bigint;
  /** ERC-721 owner (null once burned); ERC-1155 has no single owner. */
  owner: Hex | null;
  /** ERC-1155 supply of this id; 1 or 0 for ERC-721. */
  supply: bigint;
}

export interface ContractRecord {
  address: Hex;
  creator: Hex;
  txHash: Hex;
  blockNumber: number;
  timestamp: number;
}

export interface AddressCounters {
  transactions: number;
  tokenTransfers: number;
  firstBlock: number;
  lastBlock: number;
}

/** A value transfer or creation inside a transaction, from its call trace. */
export interface InternalTxRecord {
  txHash: Hex;
  blockNumber: number;
  txIndex: number;
  /** Its order among the transaction's internal transactions. */
  index: number;
  traceAddress: number[];
  type: 'call' | 'create' | 'create2' | 'selfdestruct';
  from: Hex;
  to: Hex;
  value: bigint;
  gas: bigint;
  gasUsed: bigint;
  error: string | null;
  timestamp: number;
}

/** Aggregates of one UTC day. */
export interface DayStats {
  day: number;
  blocks: number;
  transactions: number;
  gasUsed: bigint;
  /** Sum of effective gas prices, for the average. */
  gasPriceSum: bigint;
  /** Time between the day's blocks and their parents, summed, milliseconds. */
  blockTimeSumMs: number;
  activeAddresses: number;
  newAddresses: number;
}

export const addressKey = (a: Hex): Buffer => Buffer.from(a.slice(2), 'hex');
export const position = (block: number, index: number): Buffer => Buffer.concat([be(block, 8), be(index, 4)]);
export const tokenIdKey = (id: bigint): Buffer => be(id, 32);
const MAX_256 = (1n << 256n) - 1n;
/** Sorts holders by balance, largest first, in a forward scan. */
export const descendingAmount = (amount: bigint): Buffer => be(MAX_256 - amount, 32);

/** Every repository of the explorer's indexes. */
export class ExplorerIndexes {
  readonly meta: Repository<number>;
  readonly txs: Repository<TxSummary>;
  readonly addressTxs: Repository<AddressRole>;
  readonly tokenTransfers: Repository<TransferRecord>;
  readonly addressTransfers: Repository<TransferRecord>;
  readonly tokens: Repository<TokenRecord>;
  readonly balances: Repository<bigint>;
  readonly holdings: Repository<bigint>;
  readonly holdersByBalance: Repository<bigint>;
  readonly instances: Repository<InstanceRecord>;
  readonly contracts: Repository<ContractRecord>;
  readonly counters: Repository<AddressCounters>;
  readonly days: Repository<DayStats>;
  readonly dayActive: Repository<number>;
  readonly tokenSearch: Repository<number>;
  /** Tokens whose name, symbol and decimals are still to be read. */
  readonly metadataQueue: Repository<number>;
  /** Internal transactions by transaction (hash ++ index) and by address (address ++ block ++ tx index ++ index). */
  readonly internalTxs: Repository<InternalTxRecord>;
  readonly addressInternalTxs: Repository<InternalTxRecord>;

  constructor(chain: Chain) {
    const repo = <T>(prefix: string) => new Repository<T>(chain, 'explorer', Buffer.from(prefix, 'utf8'));
    this.meta = repo('m/');
    this.txs = repo('t/');
    this.addressTxs = repo('a/');
    this.tokenTransfers = repo('k/');
    this.addressTransfers = repo('w/');
    this.tokens = repo('T/');
    this.balances = repo('h/');
    this.holdings = repo('H/');
    this.holdersByBalance = repo('o/');
    this.instances = repo('i/');
    this.contracts = repo('c/');
    this.counters = repo('A/');
    this.days = repo('d/');
    this.dayActive = repo('D/');
    this.tokenSearch = repo('s/');
    this.metadataQueue = repo(METADATA_QUEUE.toString('utf8'));
    this.internalTxs = repo('x/');
    this.addressInternalTxs = repo('X/');
  }
}

export const INDEXED_HEIGHT = Buffer.from('indexed', 'utf8');
/** The last block whose internal transactions are indexed (they come from re-executing it, after its other records). */
export const INTERNAL_HEIGHT = Buffer.from('internal', 'utf8');
export const METADATA_QUEUE = Buffer.from('q/', 'utf8');
/** Running totals kept under meta: transactions, addresses seen, tokens detected. */
export const TOTAL_TRANSACTIONS = Buffer.from('transactions', 'utf8');
export const TOTAL_ADDRESSES = Buffer.from('addresses', 'utf8');
export const TOTAL_TOKENS = Buffer.from('tokens', 'utf8');
