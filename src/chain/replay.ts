// Replay: rebuild a chain from its block data alone in a fresh data dir, checking every block's
// hash and state root. Each stored block's inputs (header fields its proposer chose and its
// transactions, and for a CometBFT chain what CometBFT decided about it: its last commit and
// evidence, stored as system messages) go through the same steps a consensus engine calls — processProposal,
// finalizeBlock, commit — on the parent state that the replay itself built, so any state that did
// not come from block data (or a block whose outcome was altered) shows as a different root.
import { existsSync, readdirSync } from 'node:fs';
import type { Logger } from 'pino';
import { core, type Chain } from '../native/index.js';
import { SvcError } from '../errors.js';
import {
  compute as defaultComputeParams,
  governance as defaultGovernanceParams,
  rpc as rpcParams,
  staking as defaultStakingParams,
  type ComputeParams,
  type GovernanceParams,
  type RentParams,
  type StakingParams,
} from '../params.js';
import { appGenesis, ChainApp, type Proposal } from './app.js';
import { createNodeEvents } from './events.js';
import type { NetworkGenesis } from './genesis.js';
import { Mempool } from './mempool.js';
import { carriedTransactions } from './devnet-messages.js';

export interface ReplayOptions {
  /** Data dir of the chain to replay; the node using it must be stopped. */
  from: string;
  /** A new data dir: absent or empty. */
  to: string;
  /** The network genesis both data dirs belong to. */
  genesis: NetworkGenesis;
  chainId: number;
  stakingParams?: StakingParams;
  computeParams?: ComputeParams;
  governanceParams?: GovernanceParams;
  rentParams?: RentParams;
  log: Logger;
  /** Replays up to this height (default: the source's head). */
  toHeight?: number;
  /**
   * Called after each block committed, with the replaying app: what its modules answer at that
   * height (the block's events included) can be read here, before the next block replays.
   */
  onBlock?: (height: number, stateRoot: Buffer, app: ChainApp) => void;
}

export interface ReplayResult {
  /** Blocks replayed (heights 1..head). */
  blocks: number;
  head: { number: number; hash: Buffer; stateRoot: Buffer };
}

/** A block of the source whose replay gives another result: refused, or another hash or root. */
export class ReplayMismatchError extends SvcError {
  override readonly name = 'ReplayMismatchError';
  override readonly code = 'REPLAY_MISMATCH';
  constructor(
    readonly height: number,
    readonly reason: string,
  ) {
    super(`block ${height}: ${reason}`);
  }
}

/** The replay's target holds data already. */
export class ReplayTargetError extends SvcError {
  override readonly name = 'ReplayTargetError';
  override readonly code = 'REPLAY_TARGET';
}

const hex = (b: Buffer): string => `0x${b.toString('hex')}`;

/** A body's transactions without those its dev messages carry (each taken out once). */
function withoutCarried(txs: readonly Buffer[], carried: readonly Buffer[]): Buffer[] {
  if (carried.length === 0) return [...txs];
  const left = new Map<string, number>();
  for (const c of carried) left.set(c.toString('latin1'), (left.get(c.toString('latin1')) ?? 0) + 1);
  return txs.filter((t) => {
    const n = left.get(t.toString('latin1')) ?? 0;
    if (n === 0) return true;
    left.set(t.toString('latin1'), n - 1);
    return false;
  });
}

/** Replays `from` into `to`; throws ReplayMismatchError at the first block that differs. */
export async function replayChain(o: ReplayOptions): Promise<ReplayResult> {
  if (existsSync(o.to) && readdirSync(o.to).length > 0) throw new ReplayTargetError(`the replay's target ${o.to} is not empty: give a new data dir`);
  const source: Chain = core.Chain.open(o.from, o.genesis.spec, { rpcGasCap: rpcParams.gasCap, stateHistory: 0 });
  let target: Chain | undefined;
  try {
    target = core.Chain.open(o.to, o.genesis.spec, { rpcGasCap: rpcParams.gasCap, stateHistory: 0 });
    const mempool = new Mempool({ chain: target, chainId: o.chainId, events: createNodeEvents() });
    const app = new ChainApp(
      target,
      mempool,
      o.stakingParams ?? defaultStakingParams,
      appGenesis(o.genesis),
      o.log.child({ module: 'app' }),
      o.computeParams ?? defaultComputeParams,
      o.governanceParams ?? defaultGovernanceParams,
      o.rentParams,
    );
    const last = Math.min(o.toHeight ?? Number.MAX_SAFE_INTEGER, source.head().number);
    for (let height = 1; height <= last; height++) {
      const inputs = source.getBlockInputs(height);
      if (!inputs) throw new ReplayMismatchError(height, 'the source has no such block');
      const proposal: Proposal = {
        height,
        timestampMs: inputs.head.timestampMs,
        coinbase: inputs.coinbase,
        extraData: inputs.extraData,
        // A CometBFT block carries its decided last commit among its messages, which liveness
        // counts; a solo block carries none, and its only signer is its proposer.
        signers: [inputs.coinbase],
        // A devnet block's impersonated transactions are in its body and come again from its dev messages.
        txs: withoutCarried(inputs.txs, carriedTransactions(inputs.messages, o.chainId)),
        messages: inputs.messages,
      };
      const verdict = await app.processProposal(proposal);
      if (!verdict.accept) throw new ReplayMismatchError(height, `the proposal is refused: ${verdict.reason}`);
      const produced = await app.finalizeBlock(proposal);
      if (!produced.head.stateRoot.equals(inputs.head.stateRoot) || !produced.head.hash.equals(inputs.head.hash)) {
        const dropped = produced.included.length !== inputs.txs.length ? `; ${inputs.txs.length - produced.included.length} of its transactions were not included` : '';
        target.discardFinalized();
        throw new ReplayMismatchError(
          height,
          `state root ${hex(produced.head.stateRoot)} (hash ${hex(produced.head.hash)}) where the block has ${hex(inputs.head.stateRoot)} (hash ${hex(inputs.head.hash)})${dropped}`,
        );
      }
      const built = await app.commit();
      o.onBlock?.(height, built.produced.head.stateRoot, app);
    }
    const head = target.head();
    return { blocks: last, head: { number: head.number, hash: head.hash, stateRoot: head.stateRoot } };
  } finally {
    target?.close();
    source.close();
  }
}
