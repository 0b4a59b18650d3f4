// The node's ERC-4337 bundler: it validates user operations by simulation with ERC-7562's rules,
// holds them in its pool, and puts them on chain in handleOps bundles that it signs with its own key
// and sends to the node's transaction pool, with the validator's address (the coinbase of the blocks
// this node produces) as beneficiary. One bundle per EntryPoint is in flight at a time: when a block
// includes it (or the pool drops it) the next one is built from what waits, so each block carries
// the operations that arrived while the previous one was produced.
//
// On a CometBFT network (services.network) the bundler works with the proposer instead: an
// operation accepted over JSON-RPC is gossiped through the network's mempool, each node's CheckTx
// validates it with the same rules into its own pool (admitGossiped), and the node that proposes a
// block builds its bundles for that block alone (proposalBundles), signed at its bundler account's
// nonce on the head state, with the proposer as beneficiary: nothing waits in a transaction pool,
// so a bundle either lands in the block it was built for or is forgotten, and whichever validator
// proposes next bundles what is still pooled. An operation a block included leaves every pool when
// the block commits (its UserOperationEvent, or the EntryPoint's nonce moving past it), and
// CometBFT's recheck (recheckGossiped) drops its mempool copy; an operation bundled twice cannot
// land twice (the EntryPoint's nonce), and a proposer's simulation of handleOps on the head state
// leaves such an operation out of its bundle before any gas is spent on it.
import { concat, encodeAbiParameters, encodeFunctionData, getContractAddress, size, slice, type Address, type Hex } from 'viem';
import { privateKeyToAccount, type PrivateKeyAccount } from 'viem/accounts';
import { entryPoint06Abi, entryPoint07Abi, toPackedUserOperation } from 'viem/account-abstraction';
import type { Logger } from 'pino';
import { checksumAddress, parseAddress } from '../chain/address.js';
import { bundlerAccount } from '../chain/dev-accounts.js';
import type { NodeEvents } from '../chain/events.js';
import { USER_OPERATION_EVENT } from '../chain/user-operation-events.js';
import type { Mempool } from '../chain/pool.js';
import type { NodeConfig } from '../config.js';
import type { Chain, ProducedBlock } from '../native/index.js';
import { bundler as params, rpcErrorCode } from '../params.js';
import { BundlerError, ReplacementUnderpricedError } from './errors.js';
import { UserOperationPool, type PooledOperation } from './pool.js';
import { Reputation } from './reputation.js';
import { checkValidationRules } from './rules.js';
import { decodeGossipedOperation, encodeGossipedOperation } from './gossip.js';
import { entryPointNonce, simulateExecution, simulateValidation, throwIfFailedOp, UserOperationRejectedError } from './simulation.js';
import {
  entryPointStruct,
  factoryOf,
  operationBytes,
  operationHash,
  paymasterOf,
  SUPPORTED_ENTRY_POINTS,
  type EntryPointOperation,
} from './user-operation.js';

/** The key the bundler signs with, or why this node does not bundle. */
export function bundlerSigner(
  config: Pick<NodeConfig, 'network' | 'genesisFile' | 'bundlerKey'>,
): { privateKey: `0x${string}`; address: string } | { disabled: string } {
  if (config.bundlerKey) return { privateKey: config.bundlerKey.privateKey(), address: config.bundlerKey.address };
  if (config.network === 'devnet' && !config.genesisFile) {
    const dev = bundlerAccount();
    return { privateKey: dev.privateKey, address: dev.address };
  }
  return { disabled: 'this node has no bundler key: its operator starts it with --bundler-key-file <file> or SVC_BUNDLER_PRIVATE_KEY' };
}

/** What the bundler needs from the node. */
export interface BundlerServices {
  config: NodeConfig;
  chain: Chain;
  mempool: Mempool;
  events: NodeEvents;
  log: Logger;
  /** The beneficiary of bundles: the validator address the node produces blocks for. */
  coinbase: Buffer;
  /**
   * A CometBFT network: accepted operations are handed to `gossip` (its mempool) and bundles are
   * built only for this node's proposals (proposalBundles), never sent to the transaction pool.
   */
  network?: { gossip(operation: Buffer): void };
}

/** The gas values eth_estimateUserOperationGas answers (the paymaster's only for v0.7 with a paymaster). */
export interface GasEstimate {
  preVerificationGas: bigint;
  verificationGasLimit: bigint;
  callGasLimit: bigint;
  paymasterVerificationGasLimit?: bigint;
  paymasterPostOpGasLimit?: bigint;
}

/** The SenderCreator each EntryPoint deploys in its constructor (CREATE at nonce 1). */
function senderCreatorOf(entryPoint: Address): Address {
  return getContractAddress({ from: entryPoint, nonce: 1n });
}

/** Six non-zero bytes: a gas member is priced at no less than this size, so an estimate holds for the values sent after it. */
const PRICED_GAS_VALUE = 0xffff_ffff_ffffn;

/**
 * The operation as preVerificationGas prices it, so that the price depends on the operation's
 * shape and not on the values an estimate does not know yet: each gas member at least
 * PRICED_GAS_VALUE (six non-zero bytes; a larger value as it is), the signature as non-zero bytes
 * of its length but at least params.bundler.preVerification.sigSize (the all-zero or short
 * signature a wallet sends for estimation is priced as the full-size signature it later signs),
 * and the paymaster's data as non-zero bytes of its length (estimation-time paymaster data priced
 * as signed data of its size), as Alto and Rundler price them.
 */
function pricedOperation(e: EntryPointOperation): EntryPointOperation {
  const gas = (v: bigint | undefined): bigint => (v !== undefined && v > PRICED_GAS_VALUE ? v : PRICED_GAS_VALUE);
  const nonZero = (data: Hex | undefined, min = 0): Hex => `0x${'ff'.repeat(Math.max(min, size(data ?? '0x')))}`;
  const signature = nonZero(e.op.signature, Number(params.preVerification.sigSize));
  const fees = {
    callGasLimit: gas(e.op.callGasLimit),
    verificationGasLimit: gas(e.op.verificationGasLimit),
    preVerificationGas: gas(e.op.preVerificationGas),
    maxFeePerGas: gas(e.op.maxFeePerGas),
    maxPriorityFeePerGas: gas(e.op.maxPriorityFeePerGas),
  };
  if (e.version === '0.6') {
    const pad = e.op.paymasterAndData ?? '0x';
    const paymasterAndData = size(pad) > 20 ? concat([slice(pad, 0, 20), nonZero(slice(pad, 20))]) : pad;
    return { ...e, op: { ...e.op, ...fees, paymasterAndData, signature } };
  }
  const paymaster = e.op.paymaster
    ? {
        paymasterVerificationGasLimit: gas(e.op.paymasterVerificationGasLimit),
        paymasterPostOpGasLimit: gas(e.op.paymasterPostOpGasLimit),
        paymasterData: nonZero(e.op.paymasterData),
      }
    : {};
  return { ...e, op: { ...e.op, ...fees, ...paymaster, signature } };
}

/**
 * ERC-4337's preVerificationGas as the reference bundler computes it: the calldata cost of the
 * operation in handleOps, the transaction's fixed cost shared by the bundle, and a per-operation
 * overhead (params.bundler.preVerification), of the operation as pricedOperation shapes it. The one
 * rule for both ends: eth_estimateUserOperationGas answers it for the request (an estimation
 * signature, gas members absent) and eth_sendUserOperation requires it of the operation sent, so
 * the values an estimate answers are never refused for the signature the wallet then signs.
 */
export function preVerificationGas(operation: EntryPointOperation): bigint {
  const o = params.preVerification;
  const e = pricedOperation(operation);
  const packed =
    e.version === '0.6'
      ? encodeAbiParameters(
          [{ type: 'tuple', components: entryPoint06Abi.find((x) => x.type === 'function' && x.name === 'handleOps')!.inputs[0]!.components as never }],
          [entryPointStruct(e) as never],
        )
      : encodeAbiParameters(
          [{ type: 'tuple', components: entryPoint07Abi.find((x) => x.type === 'function' && x.name === 'handleOps')!.inputs[0]!.components as never }],
          [toPackedUserOperation(e.op) as never],
        );
  const bytes = Buffer.from(packed.slice(2), 'hex');
  let cost = 0n;
  for (const b of bytes) cost += b === 0 ? o.zeroByte : o.nonZeroByte;
  const words = BigInt(Math.ceil(bytes.length / 32));
  return cost + o.fixed / o.bundleSize + o.perUserOp + o.perUserOpWord * words;
}

/** `value` × 12/10 + `extra`, rounded up: the margin on measured gas. */
function withMargin(value: bigint, extra: bigint): bigint {
  return (value * 12n + 9n) / 10n + extra;
}

/** What the bundler has done since the node started (metrics). */
export interface BundlerCounters {
  accepted: number;
  /** Refusals by ERC-7769 code. */
  refused: Map<number, number>;
  included: number;
  dropped: number;
  bundles: number;
  bundledOperations: number;
}

export class Bundler {
  readonly pool = new UserOperationPool();
  readonly counters: BundlerCounters = { accepted: 0, refused: new Map(), included: 0, dropped: 0, bundles: 0, bundledOperations: 0 };
  readonly reputation = new Reputation();
  private readonly signer: PrivateKeyAccount | undefined;
  private readonly disabled: string | undefined;
  private readonly log: Logger;
  /** Bundle transactions sent and not yet seen in a block, by hash (hex), with their operations. */
  private readonly inFlight = new Map<string, { entryPoint: Address; operations: Hex[]; parties: string[] }>();
  private running: Promise<void> | undefined;
  private again = false;
  private closed = false;
  private readonly decayTimer: NodeJS.Timeout;
  /** The after-block work queued so far (a proposal and a recheck wait for it). */
  private blockWork: Promise<void> = Promise.resolve();
  private readonly onBlock = (produced: ProducedBlock): void => {
    this.blockWork = this.blockWork
      .then(() => this.afterBlock(produced))
      .catch((err: unknown) => this.log.warn({ err, block: produced.head.number }, 'the bundler\'s work after a block failed'));
  };

  constructor(private readonly services: BundlerServices) {
    this.log = services.log.child({ module: 'bundler' });
    const signer = bundlerSigner(services.config);
    if ('disabled' in signer) this.disabled = signer.disabled;
    else this.signer = privateKeyToAccount(signer.privateKey);
    services.events.on('block', this.onBlock);
    this.decayTimer = setInterval(() => this.reputation.decay(), 3_600_000);
    this.decayTimer.unref();
  }

  /** The address bundles are signed by, or undefined when this node does not bundle. */
  get address(): Address | undefined {
    return this.signer?.address;
  }

  /** Bundle transactions sent and not yet in a block (operators' view; the pool waits on them). */
  inFlightBundles(): { transactionHash: string; entryPoint: Address; operations: Hex[] }[] {
    return [...this.inFlight].map(([transactionHash, b]) => ({ transactionHash, entryPoint: b.entryPoint, operations: b.operations }));
  }

  /** The EntryPoints served, oldest first (ERC-7769 eth_supportedEntryPoints). */
  supportedEntryPoints(): Address[] {
    return SUPPORTED_ENTRY_POINTS.map((e) => e.address);
  }

  close(): void {
    this.closed = true;
    clearInterval(this.decayTimer);
    this.services.events.off('block', this.onBlock);
  }

  /** Validates `e` on the head state with every ERC-7562 rule; returns it as it would be pooled. */
  async validate(e: EntryPointOperation, source: PooledOperation['source'] = 'rpc'): Promise<PooledOperation> {
    const { chain, config } = this.services;
    const hash = operationHash(e, config.chainId);
    const factory = factoryOf(e);
    const paymaster = paymasterOf(e);
    for (const [title, address] of [
      ['factory', factory],
      ['paymaster', paymaster],
    ] as const) {
      if (!address) continue;
      const status = this.reputation.status(address);
      if (status !== 'ok') throw new UserOperationRejectedError(rpcErrorCode.entityThrottled, `${title} ${address} is ${status} by this bundler's reputation (ERC-7562)`);
    }
    const key = e.op.nonce >> 64n;
    const next = await entryPointNonce(chain, e);
    if (e.op.nonce !== next) {
      const which = e.op.nonce < next ? 'too low' : 'too high';
      throw new UserOperationRejectedError(
        rpcErrorCode.userOperationRejected,
        `AA25 invalid account nonce: nonce ${which}: the EntryPoint's next nonce of ${e.op.sender} for key ${key} is ${next} (0x${next.toString(16)})`,
        { nonce: `0x${next.toString(16)}` },
      );
    }
    const facts = await simulateValidation(chain, e);
    if (facts.aggregator) throw new UserOperationRejectedError(rpcErrorCode.unsupportedAggregator, `the account names signature aggregator ${facts.aggregator}; this bundler does not support aggregation`);
    if (facts.signatureFailed) throw new UserOperationRejectedError(rpcErrorCode.signatureFailed, 'AA24 signature error: the account refused the signature');
    if (facts.paymasterSignatureFailed) throw new UserOperationRejectedError(rpcErrorCode.signatureFailed, 'AA34 signature error: the paymaster refused its signature');
    const now = BigInt(chain.head().timestamp);
    const range = { validAfter: `0x${facts.validAfter.toString(16)}`, validUntil: `0x${facts.validUntil.toString(16)}` };
    if (facts.validUntil <= now + BigInt(params.validityMarginSeconds)) {
      throw new UserOperationRejectedError(
        rpcErrorCode.outOfTimeRange,
        `the operation is valid until ${facts.validUntil}, ${facts.validUntil <= now ? 'already past' : `within ${params.validityMarginSeconds} s of`} the head's time ${now}`,
        range,
      );
    }
    if (facts.validAfter > now) {
      throw new UserOperationRejectedError(rpcErrorCode.outOfTimeRange, `the operation is not valid before ${facts.validAfter}; the head's time is ${now}`, range);
    }
    const senderDeployed = (await chain.getCode(parseAddress(e.op.sender), chain.head().number)).length > 0;
    checkValidationRules({ entryPoint: e.entryPoint, sender: e.op.sender, factory, paymaster, senderDeployed }, facts, senderCreatorOf(e.entryPoint));
    return {
      hash,
      operation: e,
      validAfter: facts.validAfter,
      validUntil: facts.validUntil,
      factory,
      paymaster,
      senderStake: facts.sender,
      factoryStake: facts.factory,
      paymasterStake: facts.paymaster,
      arrivedAt: Date.now(),
      source,
      validatedAt: chain.head().number,
    };
  }

  /** eth_sendUserOperation: validates, pools and schedules a bundle; returns the operation's hash (-32602 "Already known" for one already pooled). */
  async send(e: EntryPointOperation, source: PooledOperation['source'] = 'rpc'): Promise<Hex> {
    try {
      const hash = await this.accept(e, source);
      return hash;
    } catch (err) {
      if (err instanceof BundlerError) this.counters.refused.set(err.code, (this.counters.refused.get(err.code) ?? 0) + 1);
      throw err;
    }
  }

  private async accept(e: EntryPointOperation, source: PooledOperation['source']): Promise<Hex> {
    // On a network any node relays: the proposers bundle.
    if (!this.signer && !this.services.network) throw new BundlerError(rpcErrorCode.methodNotSupported, `user operations are not accepted: ${this.disabled}`);
    const { chain, config } = this.services;
    const hash = operationHash(e, config.chainId);
    this.pool.refuseIfKnown(hash);
    const baseFee = chain.nextBaseFee();
    if (e.op.maxFeePerGas < baseFee) {
      throw new BundlerError(rpcErrorCode.invalidParams, `maxFeePerGas ${e.op.maxFeePerGas} is below the next block's base fee ${baseFee}`);
    }
    if (e.op.maxPriorityFeePerGas > e.op.maxFeePerGas) {
      throw new BundlerError(rpcErrorCode.invalidParams, `maxPriorityFeePerGas ${e.op.maxPriorityFeePerGas} is above maxFeePerGas ${e.op.maxFeePerGas}`);
    }
    const requiredPvg = preVerificationGas(e);
    if (e.op.preVerificationGas < requiredPvg) {
      throw new BundlerError(rpcErrorCode.invalidParams, `preVerificationGas ${e.op.preVerificationGas} is below ${requiredPvg}, the calldata and overhead this operation costs in a bundle`);
    }
    this.refuseIfBundled(this.pool.precheck(e, hash));
    const pooled = await this.validate(e, source);
    // The pool may have changed while the simulation ran (the same operation sent twice at once
    // included): check again.
    const replacing = this.pool.precheck(e, hash);
    this.refuseIfBundled(replacing);
    this.pool.checkShares(pooled, replacing);
    this.pool.add(pooled, replacing);
    if (replacing) this.log.debug({ replaced: replacing.hash, by: hash }, 'user operation replaced');
    for (const entity of UserOperationPool.entities(e)) this.reputation.seen(entity);
    this.counters.accepted += 1;
    if (this.services.network && source === 'rpc') this.services.network.gossip(encodeGossipedOperation(e));
    this.schedule();
    return hash;
  }

  /**
   * CheckTx of a gossiped operation: null when it is pooled (already, or now, after the same
   * validation as eth_sendUserOperation), else why not.
   */
  async admitGossiped(bytes: Uint8Array): Promise<string | null> {
    try {
      const e = decodeGossipedOperation(bytes);
      if (this.pool.get(operationHash(e, this.services.config.chainId))) return null;
      await this.send(e, 'peer');
      return null;
    } catch (err) {
      if (err instanceof BundlerError) return err.message;
      this.log.warn({ err }, 'a gossiped user operation could not be validated');
      return `not validated: ${(err as Error).message}`;
    }
  }

  /**
   * CometBFT's recheck of a gossiped operation after a block: whether it is still pooled. One the
   * block included, replaced or let expire has left the pool already; one whose nonce the
   * EntryPoint has passed (bundled by any other means), or that fails validation again once its
   * check is params.bundler.revalidateAfterBlocks old, leaves it here.
   */
  async recheckGossiped(bytes: Uint8Array): Promise<boolean> {
    await this.blockWork;
    let e: EntryPointOperation;
    try {
      e = decodeGossipedOperation(bytes);
    } catch {
      return false;
    }
    const hash = operationHash(e, this.services.config.chainId);
    const pooled = this.pool.get(hash);
    if (!pooled) return false;
    if ((await entryPointNonce(this.services.chain, e)) > e.op.nonce) {
      if (this.pool.remove(hash)) this.counters.dropped += 1;
      this.log.debug({ userOpHash: hash }, 'user operation dropped: the EntryPoint has used its nonce');
      return false;
    }
    // Checked on a head too old: simulated again with every rule, as a bundle would (a validator
    // that rarely proposes does not keep an operation that became invalid).
    if (this.services.chain.head().number - pooled.validatedAt > params.revalidateAfterBlocks) {
      try {
        const fresh = await this.validate(pooled.operation, pooled.source);
        if (this.pool.get(hash) === pooled) this.pool.add({ ...fresh, arrivedAt: pooled.arrivedAt }, pooled);
      } catch (err) {
        if (!(err instanceof BundlerError)) throw err;
        if (this.pool.remove(hash)) this.counters.dropped += 1;
        this.log.info({ userOpHash: hash, reason: err.message }, 'user operation dropped: no longer valid');
        return false;
      }
    }
    return true;
  }

  /**
   * The handleOps bundles this node puts in the block it proposes (a CometBFT network): built from
   * the pool on the head state, signed at the bundler account's next nonces, with `beneficiary`
   * (the proposer) paid. Nothing is kept: a bundle that does not land is built again by the next
   * proposer from what is still pooled.
   */
  async proposalBundles(beneficiary: Buffer): Promise<Buffer[]> {
    if (this.closed || !this.signer) return [];
    await this.blockWork;
    const out: Buffer[] = [];
    const built: { entryPoint: Address; operations: Hex[]; parties: string[] }[] = [];
    const { chain } = this.services;
    let nonce = chain.getAccount(parseAddress(this.signer.address), chain.head().number).nonce;
    try {
      for (const { address: entryPoint } of SUPPORTED_ENTRY_POINTS) {
        for (;;) {
          const mine = built.filter((b) => b.entryPoint === entryPoint);
          if (mine.length >= params.maxBundlesInFlight) break;
          const bundled = new Set(mine.flatMap((b) => b.operations.map((h) => h.toLowerCase())));
          const excluded = new Set(mine.flatMap((b) => b.parties));
          const waiting = this.pool.ordered().filter((p) => p.operation.entryPoint === entryPoint && !bundled.has(p.hash.toLowerCase()));
          if (waiting.length === 0) break;
          const bundle = await this.build(entryPoint, waiting, excluded, beneficiary, nonce);
          if (!bundle) break;
          out.push(bundle.raw);
          built.push({ entryPoint, operations: bundle.chosen.map((p) => p.hash), parties: partiesOf(bundle.chosen) });
          nonce += 1n;
          this.counters.bundles += 1;
          this.counters.bundledOperations += bundle.chosen.length;
          this.log.debug({ entryPoint, operations: bundle.chosen.length, gas: bundle.gasLimit.toString() }, 'bundle proposed');
        }
      }
    } catch (err) {
      // The proposal goes on with the bundles built so far; the rest wait for the next proposer.
      this.log.warn({ err }, 'building the proposal\'s bundles failed');
    }
    return out;
  }

  /** An operation already in a bundle sent to the transaction pool cannot be replaced any more. */
  private refuseIfBundled(replacing: PooledOperation | undefined): void {
    if (!replacing) return;
    const hash = replacing.hash.toLowerCase();
    for (const [tx, b] of this.inFlight) {
      if (b.operations.some((h) => h.toLowerCase() === hash)) {
        throw new ReplacementUnderpricedError(
          rpcErrorCode.invalidParams,
          `operation ${replacing.hash} of this sender and nonce is already in bundle ${tx}, sent to the transaction pool: it cannot be replaced`,
          { bundled: replacing.hash, transactionHash: tx },
        );
      }
    }
  }

  /** eth_estimateUserOperationGas: each gas member measured by simulation, with a margin. */
  async estimate(e: EntryPointOperation): Promise<GasEstimate> {
    const { chain } = this.services;
    const big = params.estimationGasLimit;
    // Priced at 1 wei, the account (or paymaster) pays its prefund as it will when sent, for a
    // prefund of a few wei: the balance does not limit the estimate, the payment's gas is measured.
    // An account with nothing at all is estimated at zero fees, plus what paying the prefund costs.
    const trialOf = (fee: bigint): EntryPointOperation => {
      const trialGas = { callGasLimit: big, verificationGasLimit: big, preVerificationGas: 0n, maxFeePerGas: fee, maxPriorityFeePerGas: fee };
      return e.version === '0.6'
        ? { ...e, op: { ...e.op, ...trialGas } }
        : { ...e, op: { ...e.op, ...trialGas, ...(e.op.paymaster ? { paymasterVerificationGasLimit: big, paymasterPostOpGasLimit: big } : {}) } };
    };
    let execution;
    let prefundAllowance = 0n;
    try {
      execution = await simulateExecution(chain, trialOf(1n));
    } catch (err) {
      if (!(err instanceof UserOperationRejectedError && (err.entryPointCode === 'AA21' || err.entryPointCode === 'AA31'))) throw err;
      execution = await simulateExecution(chain, trialOf(0n));
      prefundAllowance = params.prefundPaymentGas;
    }
    if (!execution.callSuccess) {
      throw new UserOperationRejectedError(rpcErrorCode.userOperationExecutionReverted, `the operation's execution reverts (revert data ${execution.callOutput})`, {
        revertData: execution.callOutput,
      });
    }
    // Validation gas by phase: the paymaster's validation frame apart (v0.7 limits it separately).
    const paymaster = paymasterOf(e)?.toLowerCase();
    const entryPoint = e.entryPoint.toLowerCase();
    let paymasterValidation = 0n;
    for (const f of execution.trace.frames) {
      if (f.parent !== 0 && `0x${f.from.toString('hex')}` !== entryPoint) continue;
      if (paymaster && `0x${f.to.toString('hex')}` === paymaster && f.selector.toString('hex') !== (e.version === '0.6' ? 'a9a23409' : '7c627b21')) {
        paymasterValidation += f.gasUsed;
      }
    }
    const validation = execution.preOpGas + prefundAllowance; // preVerificationGas was 0 in the trial
    const estimate: GasEstimate = {
      preVerificationGas: preVerificationGas(e),
      verificationGasLimit: withMargin(e.version === '0.7' ? validation - paymasterValidation : validation, 10_000n),
      // The call gets at most 63/64 of what is left (EIP-150).
      callGasLimit: withMargin((execution.callGasUsed * 64n) / 63n, 10_000n),
    };
    if (e.version === '0.7' && e.op.paymaster) {
      estimate.paymasterVerificationGasLimit = withMargin(paymasterValidation, 10_000n);
      estimate.paymasterPostOpGasLimit = execution.postOpGasUsed > 0n ? withMargin(execution.postOpGasUsed, 10_000n) : 0n;
    }
    return estimate;
  }

  /** Runs a bundle round now, or once more after the one running. */
  schedule(): void {
    // On a network the proposer bundles (proposalBundles).
    if (this.closed || !this.signer || this.services.network) return;
    if (this.running) {
      this.again = true;
      return;
    }
    this.running = (async () => {
      do {
        this.again = false;
        try {
          await this.bundleRound();
        } catch (err) {
          this.log.warn({ err }, 'bundle round failed');
        }
      } while (this.again && !this.closed);
    })().finally(() => {
      this.running = undefined;
    });
  }

  /** Waits for the bundle round running now (tests, shutdown). */
  async idle(): Promise<void> {
    while (this.running) await this.running;
  }

  private async afterBlock(produced: ProducedBlock): Promise<void> {
    if (this.closed) return;
    const { chain, mempool } = this.services;
    const number = produced.head.number;
    try {
      const found = await chain.getLogs({
        fromBlock: number,
        toBlock: number,
        addresses: SUPPORTED_ENTRY_POINTS.map((e) => parseAddress(e.address)),
        topics: [[Buffer.from(USER_OPERATION_EVENT.slice(2), 'hex')]],
        limit: 100_000,
      });
      for (const log of found.logs as unknown as { topics: Hex[] }[]) {
        const removed = this.pool.remove(log.topics[1]!);
        if (!removed) continue;
        this.counters.included += 1;
        for (const entity of UserOperationPool.entities(removed.operation)) this.reputation.included(entity);
      }
    } catch (err) {
      this.log.warn({ err, block: number }, 'reading the block for included user operations failed');
    }
    const included = new Set(produced.included.map((h) => h.toString('hex')));
    for (const [hash] of this.inFlight) {
      if (included.has(hash.slice(2)) || !mempool.get(Buffer.from(hash.slice(2), 'hex'))) this.inFlight.delete(hash);
    }
    // Operations past their time, or no longer valid at their nonce, leave the pool.
    const now = BigInt(produced.head.timestamp);
    for (const p of [...this.pool.all()]) if (p.validUntil <= now && this.pool.remove(p.hash)) this.counters.dropped += 1;
    if (this.pool.size > 0) this.schedule();
  }

  /**
   * One round: for each EntryPoint, bundles of the waiting operations until params.bundler
   * .maxBundlesInFlight are in flight. A bundle leaves out the senders and paymasters of the bundles
   * in flight, so that bundles of one block do not act on each other's accounts or deposits.
   */
  private async bundleRound(): Promise<void> {
    for (const { address: entryPoint } of SUPPORTED_ENTRY_POINTS) {
      for (;;) {
        const flying = [...this.inFlight.values()].filter((b) => b.entryPoint === entryPoint);
        if (flying.length >= params.maxBundlesInFlight) break;
        const bundled = new Set(flying.flatMap((b) => b.operations.map((h) => h.toLowerCase())));
        const excluded = new Set(flying.flatMap((b) => b.parties));
        const waiting = this.pool.ordered().filter((p) => p.operation.entryPoint === entryPoint && !bundled.has(p.hash.toLowerCase()));
        if (waiting.length === 0 || !(await this.bundle(entryPoint, waiting, excluded))) break;
      }
    }
  }

  /** Builds, checks, signs and sends one bundle of `waiting` (less `excluded` senders and paymasters); whether one was sent. */
  private async bundle(entryPoint: Address, waiting: PooledOperation[], excluded: Set<string>): Promise<boolean> {
    const { mempool, coinbase } = this.services;
    const signer = this.signer!;
    const built = await this.build(entryPoint, waiting, excluded, coinbase, mempool.pendingNonce(parseAddress(signer.address)));
    if (!built) return false;
    const { raw, chosen, gasLimit } = built;
    try {
      const hash = await mempool.submit(raw);
      this.inFlight.set(`0x${hash.toString('hex')}`, { entryPoint, operations: chosen.map((p) => p.hash), parties: partiesOf(chosen) });
      this.counters.bundles += 1;
      this.counters.bundledOperations += chosen.length;
      this.log.debug({ tx: `0x${hash.toString('hex')}`, entryPoint, operations: chosen.length, gas: gasLimit.toString() }, 'bundle sent');
      return true;
    } catch (err) {
      this.log.warn({ err, entryPoint, operations: chosen.length }, 'the transaction pool refused the bundle');
      return false;
    }
  }

  /**
   * Builds, checks and signs one bundle of `waiting` (less `excluded` senders and paymasters) paying
   * `beneficiary`, at the bundler account's `nonce`; undefined when none can be built.
   */
  private async build(
    entryPoint: Address,
    waiting: PooledOperation[],
    excluded: Set<string>,
    beneficiaryAddress: Buffer,
    nonce: bigint,
  ): Promise<{ raw: Buffer; chosen: PooledOperation[]; gasLimit: bigint } | undefined> {
    const { chain, config } = this.services;
    const signer = this.signer!;
    const head = chain.head();
    const baseFee = chain.nextBaseFee();
    const gasCap = (BigInt(head.gasLimit) * BigInt(params.maxBundleGasBps)) / 10_000n;
    const chosen: PooledOperation[] = [];
    const senders = new Set<string>();
    let gas = 0n;
    let bytes = 0;
    for (const p of waiting) {
      if (chosen.length >= params.maxBundleOperations) break;
      const { op } = p.operation;
      const sender = op.sender.toLowerCase();
      const paymaster = p.paymaster?.toLowerCase();
      if (senders.has(sender) || excluded.has(sender) || (paymaster && excluded.has(paymaster)) || op.maxFeePerGas < baseFee) continue;
      if (p.validUntil <= BigInt(head.timestamp)) {
        if (this.pool.remove(p.hash)) this.counters.dropped += 1;
        continue;
      }
      let current = p;
      if (head.number - p.validatedAt > params.revalidateAfterBlocks) {
        // Checked on a head too old: simulate it again, with every rule, on the state the bundle runs on.
        try {
          current = await this.validate(p.operation, p.source);
        } catch (err) {
          this.pool.remove(p.hash);
          this.counters.dropped += 1;
          this.log.info({ userOpHash: p.hash, reason: (err as Error).message }, 'user operation dropped: no longer valid');
          continue;
        }
      }
      const opGas = this.operationGas(current.operation);
      // The struct, and its offset word in handleOps' array.
      const opBytes = operationBytes(current.operation) + 32;
      if (gas + opGas > gasCap || bytes + opBytes > params.maxBundleBytes) continue;
      gas += opGas;
      bytes += opBytes;
      senders.add(sender);
      chosen.push(current);
    }
    if (chosen.length === 0) return undefined;

    // handleOps, trimmed of any operation the EntryPoint refuses in the bundle (FailedOp names its
    // index). Its gas: the operations' limits (what the EntryPoint may spend on them) and the
    // call's own overhead; a call with exactly that gas on the head state checks it is enough.
    let data: Hex = '0x';
    let maxFeePerGas = 0n;
    let maxPriorityFeePerGas = 0n;
    let gasLimit = 0n;
    for (;;) {
      if (chosen.length === 0) return undefined;
      maxFeePerGas = chosen.reduce((m, p) => (p.operation.op.maxFeePerGas < m ? p.operation.op.maxFeePerGas : m), chosen[0]!.operation.op.maxFeePerGas);
      maxPriorityFeePerGas = chosen.reduce((m, p) => {
        const { maxFeePerGas: fee, maxPriorityFeePerGas: tip } = p.operation.op;
        const usable = fee - baseFee < tip ? fee - baseFee : tip;
        return usable < m ? usable : m;
      }, maxFeePerGas);
      const structs = chosen.map((p) => entryPointStruct(p.operation));
      const beneficiary = checksumAddress(beneficiaryAddress) as Address;
      data =
        chosen[0]!.operation.version === '0.6'
          ? encodeFunctionData({ abi: entryPoint06Abi, functionName: 'handleOps', args: [structs as never, beneficiary] })
          : encodeFunctionData({ abi: entryPoint07Abi, functionName: 'handleOps', args: [structs as never, beneficiary] });
      const limits = chosen.reduce((sum, p) => sum + this.operationGas(p.operation), 0n);
      gasLimit = limits + limits / 10n + params.bundleOverheadGas;
      if (gasLimit > BigInt(head.gasLimit)) gasLimit = BigInt(head.gasLimit);
      const out = await chain.call(
        {
          from: parseAddress(signer.address),
          to: parseAddress(entryPoint),
          data: Buffer.from(data.slice(2), 'hex'),
          gas: gasLimit,
          maxFeePerGas,
          maxPriorityFeePerGas,
        },
        head.number,
      );
      if (out.status === 'success') break;
      const failedIndex = failedOpIndex(`0x${out.output.toString('hex')}`);
      if (failedIndex === undefined || failedIndex >= chosen.length) {
        this.log.warn({ entryPoint, operations: chosen.length, error: out.error }, 'handleOps fails on the head state; the bundle waits for the next block');
        return undefined;
      }
      const [dropped] = chosen.splice(failedIndex, 1);
      this.pool.remove(dropped!.hash);
      this.counters.dropped += 1;
      this.log.info({ userOpHash: dropped!.hash, reason: describeFailure(`0x${out.output.toString('hex')}`) }, 'user operation dropped: refused in the bundle');
    }
    const signed = await signer.signTransaction({
      type: 'eip1559',
      chainId: config.chainId,
      nonce: Number(nonce),
      to: entryPoint,
      data,
      gas: gasLimit,
      maxFeePerGas,
      maxPriorityFeePerGas,
    });
    return { raw: Buffer.from(signed.slice(2), 'hex'), chosen, gasLimit };
  }

  /**
   * The gas an operation may need in a bundle: its limits as the EntryPoint reserves them. v0.6
   * spends up to verificationGasLimit on the account's validation (and again on the paymaster's) and
   * then requires callGasLimit + verificationGasLimit (postOp's reserve) to be left (AA95).
   */
  private operationGas(e: EntryPointOperation): bigint {
    if (e.version === '0.6') {
      const mul = size(e.op.paymasterAndData ?? '0x') > 0 ? 3n : 2n;
      return e.op.preVerificationGas + e.op.verificationGasLimit * mul + e.op.callGasLimit;
    }
    return e.op.preVerificationGas + e.op.verificationGasLimit + e.op.callGasLimit + (e.op.paymasterVerificationGasLimit ?? 0n) + (e.op.paymasterPostOpGasLimit ?? 0n);
  }
}

/** The senders and paymasters of a bundle's operations (lower case). */
function partiesOf(chosen: PooledOperation[]): string[] {
  return chosen.flatMap((p) => [p.operation.op.sender.toLowerCase(), ...(p.paymaster ? [p.paymaster.toLowerCase()] : [])]);
}

/** The index a FailedOp / FailedOpWithRevert revert names, or undefined for other data. */
function failedOpIndex(data: Hex): number | undefined {
  // FailedOp(uint256,string) = 0x220266b6, FailedOpWithRevert(uint256,string,bytes) = 0x65c8fd4d.
  if (data.startsWith('0x220266b6') || data.startsWith('0x65c8fd4d')) return Number(BigInt(`0x${data.slice(10, 74)}`));
  return undefined;
}

function describeFailure(data: Hex): string {
  try {
    throwIfFailedOp(data, 'handleOps');
  } catch (err) {
    return (err as Error).message;
  }
  return `reverted (${data.slice(0, 74)})`;
}
