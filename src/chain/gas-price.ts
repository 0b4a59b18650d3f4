// The gas price rule (geth's oracle): the one statement of what the node suggests paying, which
// eth_gasPrice / eth_maxPriorityFeePerGas (rpc/eth/fees.ts) and the explorer's gas oracle
// (explorer/handlers/gas-oracle.ts) both call, so they cannot disagree.
import type { Chain, FeeHistoryResult } from '../native/index.js';
import { rpc } from '../params.js';

/** Suggested tips at a head, with the fee history they came from. */
export interface TipSuggestion {
  head: number;
  /** The next block's base fee. */
  nextBaseFee: bigint;
  /** One tip per percentile asked for, in the same order. */
  tips: bigint[];
  history: FeeHistoryResult;
}

/**
 * For each percentile p: over the last params.rpc.gasPriceOracleBlocks blocks that carried
 * transactions (an empty block's zero reward says nothing about what transactions pay), each
 * block's effective tip at p, and the p-th percentile of those; params.rpc.defaultPriorityFee when
 * no block carried any. eth_maxPriorityFeePerGas is the tip at params.rpc.gasPriceOraclePercentile
 * and eth_gasPrice that tip plus the next base fee.
 */
export function suggestTips(chain: Chain, percentiles: readonly number[]): TipSuggestion {
  const head = chain.head().number;
  const history = chain.feeHistory(head, Math.min(rpc.gasPriceOracleBlocks, head + 1), [...percentiles]);
  const tips = percentiles.map((p, i) => {
    const values: bigint[] = [];
    history.reward.forEach((rewards, b) => {
      if ((history.gasUsedRatio[b] ?? 0) > 0 && rewards[i] !== undefined) values.push(rewards[i]);
    });
    values.sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
    return values.length === 0 ? rpc.defaultPriorityFee : values[Math.floor(((values.length - 1) * p) / 100)]!;
  });
  return { head, nextBaseFee: chain.nextBaseFee(), tips, history };
}

/** eth_maxPriorityFeePerGas and eth_gasPrice by suggestTips, cached per head. */
export class GasPriceOracle {
  private cached: { head: string; tip: bigint } | undefined;

  constructor(private readonly chain: Chain) {}

  suggestTipCap(): bigint {
    const key = this.chain.head().hash.toString('hex');
    if (this.cached?.head === key) return this.cached.tip;
    const tip = suggestTips(this.chain, [rpc.gasPriceOraclePercentile]).tips[0]!;
    this.cached = { head: key, tip };
    return tip;
  }

  /** Legacy gas price: the suggested tip plus the base fee of the next block. */
  suggestGasPrice(): bigint {
    return this.suggestTipCap() + this.chain.nextBaseFee();
  }
}
