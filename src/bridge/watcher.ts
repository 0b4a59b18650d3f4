// A validator's view of the external chain: the bridge contract's events once they are
// `confirmations` blocks deep, each reported once (deposits in nonce order). An event seen in a
// block that is then reorganised away is not reported unless it is in the chain again at that depth
// (with the content it has there). Events of any other contract are not read (the query names the
// bridge's address, and each log's address is checked again).
import { getAddress, parseAbiItem, type AbiEvent, type Address, type GetLogsReturnType, type Hex, type PublicClient } from 'viem';

/** One deposit as the external chain holds it. */
export interface ObservedDeposit {
  nonce: bigint;
  /** 0x000…0 for ETH. */
  token: Address;
  sender: Address;
  /** Whom svc credits. */
  recipient: Address;
  amount: bigint;
  blockNumber: bigint;
  blockHash: Hex;
  transactionHash: Hex;
}

export interface DepositWatcherOptions {
  client: PublicClient;
  contract: Address;
  /** A deposit in block b is reported once head - b + 1 >= confirmations. */
  confirmations: number;
  /** The first block to read (the contract's deployment); 0 by default. */
  fromBlock?: bigint;
  /** The next deposit nonce expected (1 for a fresh contract); earlier ones are not reported again. */
  nextNonce?: bigint;
  /** Blocks per eth_getLogs query. */
  blockRange?: bigint;
}

/** SvcBridge's events (contracts/bridge/SvcBridge.sol). */
const DEPOSIT_EVENT = parseAbiItem('event Deposit(uint256 indexed nonce, address indexed token, address indexed sender, address recipient, uint256 amount)');
const WITHDRAWAL_EVENT = parseAbiItem('event Withdrawal(uint256 indexed id, address indexed token, address indexed recipient, uint256 amount)');
const VALSET_EVENT = parseAbiItem('event ValsetUpdated(uint256 indexed nonce, address[] validators, uint256[] powers)');

type ConfirmedLog<E extends AbiEvent> = GetLogsReturnType<E, [E], true>[number];

/** The contract's logs of one event, each returned once when its block is `confirmations` deep. */
class ConfirmedLogs<E extends AbiEvent> {
  private readonly contract: Address;
  private scannedTo: bigint;

  constructor(
    private readonly options: Omit<DepositWatcherOptions, 'nextNonce'>,
    private readonly event: E,
  ) {
    if (!Number.isSafeInteger(options.confirmations) || options.confirmations < 1) throw new RangeError('confirmations must be a whole number of at least 1');
    this.contract = getAddress(options.contract);
    this.scannedTo = (options.fromBlock ?? 0n) - 1n;
  }

  async poll(): Promise<ConfirmedLog<E>[]> {
    const { client, confirmations } = this.options;
    // Never a cached head: a reorganisation or a new block between two polls must be seen.
    const head = await client.getBlockNumber({ cacheTime: 0 });
    const safe = head - BigInt(confirmations) + 1n;
    const range = this.options.blockRange ?? 2_000n;
    const out: ConfirmedLog<E>[] = [];
    while (this.scannedTo < safe) {
      const fromBlock = this.scannedTo + 1n;
      const toBlock = fromBlock + range - 1n < safe ? fromBlock + range - 1n : safe;
      const logs = (await client.getLogs({ address: this.contract, event: this.event as AbiEvent, fromBlock, toBlock, strict: true })) as ConfirmedLog<E>[];
      for (const log of logs) if (getAddress(log.address) === this.contract && !log.removed) out.push(log);
      this.scannedTo = toBlock;
    }
    return out;
  }
}

export class DepositWatcher {
  private readonly logs: ConfirmedLogs<typeof DEPOSIT_EVENT>;
  private nextNonce: bigint;
  /** Confirmed deposits read but held back behind a missing nonce. */
  private readonly held = new Map<bigint, ObservedDeposit>();

  constructor(options: DepositWatcherOptions) {
    this.logs = new ConfirmedLogs(options, DEPOSIT_EVENT);
    this.nextNonce = options.nextNonce ?? 1n;
  }

  /** The next deposit nonce this watcher will report. */
  get expectedNonce(): bigint {
    return this.nextNonce;
  }

  /** The deposits that reached the confirmation depth since the last poll, in nonce order. */
  async poll(): Promise<ObservedDeposit[]> {
    for (const log of await this.logs.poll()) {
      const { args } = log;
      if (args.nonce < this.nextNonce) continue;
      this.held.set(args.nonce, {
        nonce: args.nonce,
        token: getAddress(args.token),
        sender: getAddress(args.sender),
        recipient: getAddress(args.recipient),
        amount: args.amount,
        blockNumber: log.blockNumber!,
        blockHash: log.blockHash!,
        transactionHash: log.transactionHash!,
      });
    }
    const out: ObservedDeposit[] = [];
    for (let d = this.held.get(this.nextNonce); d; d = this.held.get(this.nextNonce)) {
      out.push(d);
      this.held.delete(this.nextNonce);
      this.nextNonce += 1n;
    }
    return out;
  }
}

/** One release as the external chain holds it (SvcBridge's Withdrawal event). */
export interface ObservedRelease {
  id: bigint;
  token: Address;
  recipient: Address;
  amount: bigint;
  blockNumber: bigint;
  transactionHash: Hex;
}

/** The contract's Withdrawal events at the confirmation depth, each reported once (the contract releases an id once). */
export class ReleaseWatcher {
  private readonly logs: ConfirmedLogs<typeof WITHDRAWAL_EVENT>;

  constructor(options: Omit<DepositWatcherOptions, 'nextNonce'>) {
    this.logs = new ConfirmedLogs(options, WITHDRAWAL_EVENT);
  }

  async poll(): Promise<ObservedRelease[]> {
    return (await this.logs.poll()).map((log) => ({
      id: log.args.id,
      token: getAddress(log.args.token),
      recipient: getAddress(log.args.recipient),
      amount: log.args.amount,
      blockNumber: log.blockNumber!,
      transactionHash: log.transactionHash!,
    }));
  }
}

/** A set the contract took (its constructor's, nonce 0, or an updateValset). */
export interface ObservedValset {
  nonce: bigint;
  validators: Address[];
  powers: bigint[];
  blockNumber: bigint;
}

/** The contract's ValsetUpdated events at the confirmation depth, each reported once. */
export class ValsetWatcher {
  private readonly logs: ConfirmedLogs<typeof VALSET_EVENT>;

  constructor(options: Omit<DepositWatcherOptions, 'nextNonce'>) {
    this.logs = new ConfirmedLogs(options, VALSET_EVENT);
  }

  async poll(): Promise<ObservedValset[]> {
    return (await this.logs.poll()).map((log) => ({
      nonce: log.args.nonce,
      validators: log.args.validators.map((v) => getAddress(v)),
      powers: [...log.args.powers],
      blockNumber: log.blockNumber!,
    }));
  }
}
