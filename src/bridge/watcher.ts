// A validator's view of the external chain: the bridge contract's Deposit events once they are
// `confirmations` blocks deep, each reported once and in deposit-nonce order. A deposit seen in a
// block that is then reorganised away is not reported unless it is in the chain again at that depth
// (with the content it has there). Events of any other contract are not read (the query names the
// bridge's address, and each log's address is checked again).
import { getAddress, parseAbiItem, type Address, type Hex, type PublicClient } from 'viem';

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

/** SvcBridge's Deposit event (contracts/bridge/SvcBridge.sol). */
const DEPOSIT_EVENT = parseAbiItem('event Deposit(uint256 indexed nonce, address indexed token, address indexed sender, address recipient, uint256 amount)');

export class DepositWatcher {
  private readonly contract: Address;
  private scannedTo: bigint;
  private nextNonce: bigint;
  /** Confirmed deposits read but held back behind a missing nonce. */
  private readonly held = new Map<bigint, ObservedDeposit>();

  constructor(private readonly options: DepositWatcherOptions) {
    if (!Number.isSafeInteger(options.confirmations) || options.confirmations < 1) throw new RangeError('confirmations must be a whole number of at least 1');
    this.contract = getAddress(options.contract);
    this.scannedTo = (options.fromBlock ?? 0n) - 1n;
    this.nextNonce = options.nextNonce ?? 1n;
  }

  /** The next deposit nonce this watcher will report. */
  get expectedNonce(): bigint {
    return this.nextNonce;
  }

  /** The deposits that reached the confirmation depth since the last poll, in nonce order. */
  async poll(): Promise<ObservedDeposit[]> {
    const { client, confirmations } = this.options;
    // Never a cached head: a reorganisation or a new block between two polls must be seen.
    const head = await client.getBlockNumber({ cacheTime: 0 });
    const safe = head - BigInt(confirmations) + 1n;
    const range = this.options.blockRange ?? 2_000n;
    while (this.scannedTo < safe) {
      const fromBlock = this.scannedTo + 1n;
      const toBlock = fromBlock + range - 1n < safe ? fromBlock + range - 1n : safe;
      const logs = await client.getLogs({ address: this.contract, event: DEPOSIT_EVENT, fromBlock, toBlock, strict: true });
      for (const log of logs) {
        if (getAddress(log.address) !== this.contract || log.removed) continue;
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
      this.scannedTo = toBlock;
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
