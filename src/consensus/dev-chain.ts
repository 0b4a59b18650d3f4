// The devnet's development controls (Hardhat's and anvil's methods): blocks mined on demand by the
// solo driver, carrying the dev messages that edit accounts or run an impersonated account's
// transaction (src/chain/devnet-messages.ts), and the clock the solo driver times blocks by. Every
// edit arrives in a block committed before the method answers, so a read at "latest" sees it, as
// with Hardhat's automine.
import type { Chain, ProducedBlock } from '../native/index.js';
import { encodeDevMessage, MAX_DEV_MESSAGES, splitMessages, type DevMessage } from '../chain/devnet-messages.js';
import type { Address } from '../modules/kernel/records.js';
import { SvcError } from '../errors.js';
import type { SoloDriver } from './solo.js';
import type { DevSnapshots } from './dev-snapshots.js';

/** Most blocks one anvil_mine / hardhat_mine call mines. */
export const MAX_MINED_BLOCKS = MAX_DEV_MESSAGES;

/** A development request that cannot be done as asked (a time not after the head's, too many blocks). */
export class DevRequestError extends SvcError {
  override readonly name = 'DevRequestError';
  override readonly code = 'DEV_REQUEST';
}

export class DevChain {
  /** Accounts whose transactions eth_sendTransaction sends without a signature (node memory, not chain state). */
  private readonly impersonated = new Set<string>();

  constructor(
    private readonly driver: SoloDriver,
    private readonly chain: Chain,
    private readonly isModule: (address: Address) => boolean,
    /** evm_snapshot and evm_revert (src/consensus/dev-snapshots.ts). */
    readonly snapshots: DevSnapshots,
  ) {}

  /** Mines one block carrying `messages` (checked first: a refusal changes nothing); resolves once it is committed. */
  async mine(messages: readonly DevMessage[] = []): Promise<ProducedBlock> {
    const encoded = messages.map(encodeDevMessage);
    const split = splitMessages(encoded, true, this.isModule);
    if (typeof split === 'string') throw new DevRequestError(split);
    return this.driver.produceNext(encoded);
  }

  /** Mines one block at `seconds` (evm_mine with a timestamp). */
  async mineAt(seconds: bigint): Promise<ProducedBlock> {
    this.setNextBlockTimestamp(seconds);
    return this.mine();
  }

  /**
   * Mines `count` blocks, each `intervalSeconds` after the one before (hardhat_mine, anvil_mine);
   * an interval of 0 leaves their times to the clock (blocks of one second share it, a millisecond apart).
   */
  async mineMany(count: bigint, intervalSeconds: bigint): Promise<void> {
    if (count > BigInt(MAX_MINED_BLOCKS)) throw new DevRequestError(`at most ${MAX_MINED_BLOCKS} blocks a call, asked for ${count}`);
    for (let i = 0n; i < count; i++) {
      if (i > 0n && intervalSeconds > 0n) this.setNextBlockTimestamp(BigInt(this.chain.head().timestamp) + intervalSeconds);
      await this.mine();
    }
  }

  /** Moves the clock forward by `seconds` (evm_increaseTime); returns the total offset in seconds. */
  increaseTime(seconds: bigint): bigint {
    if (seconds < 0n) throw new DevRequestError('time only moves forward: the increase must not be negative');
    const ms = seconds * 1000n;
    if (BigInt(this.driver.nextBlockTime()) + ms > BigInt(Number.MAX_SAFE_INTEGER)) throw new DevRequestError(`an increase of ${seconds} seconds passes the largest block time`);
    return BigInt(this.driver.increaseTime(Number(ms))) / 1000n;
  }

  /** The next block's timestamp, in seconds (evm_setNextBlockTimestamp): after the head's, as the header rule wants. */
  setNextBlockTimestamp(seconds: bigint): void {
    const head = this.chain.head().timestamp;
    if (seconds <= BigInt(head)) throw new DevRequestError(`timestamp ${seconds} is not after the head's timestamp ${head}`);
    if (seconds * 1000n > BigInt(Number.MAX_SAFE_INTEGER)) throw new DevRequestError(`timestamp ${seconds} passes the largest block time`);
    this.driver.setNextBlockTime(Number(seconds * 1000n));
  }

  impersonate(address: Address): void {
    this.impersonated.add(address.toLowerCase());
  }

  stopImpersonating(address: Address): void {
    this.impersonated.delete(address.toLowerCase());
  }

  isImpersonated(address: Address): boolean {
    return this.impersonated.has(address.toLowerCase());
  }
}
