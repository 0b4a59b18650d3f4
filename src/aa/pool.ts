// The user-operation pool: validated operations waiting for a bundle, one per (EntryPoint, sender,
// nonce). The same operation sent again while it is pooled is refused (-32602 "Already known"). A
// second operation with the same sender and nonce replaces the first only when it raises both fees
// by params.bundler.replacementFeeBumpPercent (as the reference bundler); the replaced one is
// dropped. Operations from peers (gossiped on a CometBFT network, src/aa/gossip.ts) enter through
// the same checks and `add` as a caller's.
import type { Address, Hex } from 'viem';
import { bundler as params, rpcErrorCode } from '../params.js';
import { BundlerError, ReplacementUnderpricedError } from './errors.js';
import { isStaked, type StakeInfo } from './simulation.js';
import { factoryOf, paymasterOf, type EntryPointOperation } from './user-operation.js';

/** One pooled operation. */
export interface PooledOperation {
  hash: Hex;
  operation: EntryPointOperation;
  validAfter: bigint;
  validUntil: bigint;
  factory: Address | undefined;
  paymaster: Address | undefined;
  senderStake: StakeInfo;
  factoryStake: StakeInfo;
  paymasterStake: StakeInfo;
  /** Wall-clock arrival (ordering among equal fees). */
  arrivedAt: number;
  /** Where it came from: this node's RPC, or a peer (gossip on a CometBFT network). */
  source: 'rpc' | 'peer';
  /** The head the simulation ran on: a bundle built on another head simulates it again. */
  validatedAt: number;
}

function key(e: EntryPointOperation): string {
  return `${e.entryPoint.toLowerCase()}:${e.op.sender.toLowerCase()}:${e.op.nonce}`;
}

export class UserOperationPool {
  private readonly byHash = new Map<string, PooledOperation>();
  private readonly bySlot = new Map<string, string>();

  get size(): number {
    return this.byHash.size;
  }

  get(hash: string): PooledOperation | undefined {
    return this.byHash.get(hash.toLowerCase());
  }

  /** Every pooled operation, in no particular order. */
  all(): IterableIterator<PooledOperation> {
    return this.byHash.values();
  }

  /** Every pooled operation, best first: highest priority fee, then earliest. */
  ordered(): PooledOperation[] {
    return [...this.byHash.values()].sort((a, b) => {
      const fee = b.operation.op.maxPriorityFeePerGas - a.operation.op.maxPriorityFeePerGas;
      return fee > 0n ? 1 : fee < 0n ? -1 : a.arrivedAt - b.arrivedAt;
    });
  }

  /**
   * An operation sent again while it is pooled (the same hash) is refused, as Alto ("Already known")
   * and Rundler ("Operation already known") refuse it: -32602.
   */
  refuseIfKnown(hash: Hex): void {
    if (!this.byHash.has(hash.toLowerCase())) return;
    throw new BundlerError(rpcErrorCode.invalidParams, `Already known: user operation ${hash} is already in this node's pool, waiting for a bundle`, { userOpHash: hash });
  }

  /**
   * The checks that need the pool, before the (costly) simulation: the same operation already
   * pooled, a replacement's fee bump, the pool's size. Returns the operation this one would replace.
   */
  precheck(e: EntryPointOperation, hash?: Hex): PooledOperation | undefined {
    if (hash) this.refuseIfKnown(hash);
    const existingHash = this.bySlot.get(key(e));
    const existing = existingHash ? this.byHash.get(existingHash) : undefined;
    if (existing) {
      const bump = (v: bigint) => v + (v * params.replacementFeeBumpPercent) / 100n;
      const needPriority = bump(existing.operation.op.maxPriorityFeePerGas);
      const needMax = bump(existing.operation.op.maxFeePerGas);
      if (e.op.maxPriorityFeePerGas < needPriority || e.op.maxFeePerGas < needMax) {
        throw new ReplacementUnderpricedError(
          rpcErrorCode.invalidParams,
          `replacement underpriced: operation ${existing.hash} of this sender and nonce is pooled; a replacement needs maxPriorityFeePerGas >= ${needPriority} and maxFeePerGas >= ${needMax} (+${params.replacementFeeBumpPercent}%)`,
          { replaces: existing.hash },
        );
      }
      return existing;
    }
    if (this.byHash.size >= params.maxPoolOperations) {
      throw new BundlerError(rpcErrorCode.limitExceeded, `the user operation pool is full (${params.maxPoolOperations} operations)`);
    }
    return undefined;
  }

  /** ERC-7562's pool shares: SAME_SENDER_MEMPOOL_COUNT for an unstaked sender, SAME_UNSTAKED_ENTITY_MEMPOOL_COUNT for an unstaked factory or paymaster. */
  checkShares(p: PooledOperation, replacing: PooledOperation | undefined): void {
    const others = [...this.byHash.values()].filter((o) => o !== replacing);
    const sender = p.operation.op.sender.toLowerCase();
    if (!isStaked(p.senderStake) && others.filter((o) => o.operation.op.sender.toLowerCase() === sender).length >= params.sameSenderPoolCount) {
      throw new BundlerError(rpcErrorCode.entityThrottled, `sender ${p.operation.op.sender} already has ${params.sameSenderPoolCount} operations pooled; an unstaked sender may have no more (ERC-7562 SREP-010)`);
    }
    for (const [entity, address, stake] of [
      ['factory', p.factory, p.factoryStake],
      ['paymaster', p.paymaster, p.paymasterStake],
    ] as const) {
      if (!address || isStaked(stake)) continue;
      const lower = address.toLowerCase();
      const count = others.filter((o) => (entity === 'factory' ? o.factory : o.paymaster)?.toLowerCase() === lower).length;
      if (count >= params.sameUnstakedEntityPoolCount) {
        throw new BundlerError(rpcErrorCode.entityThrottled, `unstaked ${entity} ${address} already has ${count} operations pooled (ERC-7562 SAME_UNSTAKED_ENTITY_MEMPOOL_COUNT)`);
      }
    }
  }

  /** Adds `p`, dropping the operation it replaces. */
  add(p: PooledOperation, replacing: PooledOperation | undefined): void {
    if (replacing) this.remove(replacing.hash);
    this.byHash.set(p.hash.toLowerCase(), p);
    this.bySlot.set(key(p.operation), p.hash.toLowerCase());
  }

  remove(hash: string): PooledOperation | undefined {
    const p = this.byHash.get(hash.toLowerCase());
    if (!p) return undefined;
    this.byHash.delete(hash.toLowerCase());
    if (this.bySlot.get(key(p.operation)) === hash.toLowerCase()) this.bySlot.delete(key(p.operation));
    return p;
  }

  /** The entities an operation names (for reputation). */
  static entities(e: EntryPointOperation): Address[] {
    return [factoryOf(e), paymasterOf(e)].filter((a): a is Address => a !== undefined);
  }
}
