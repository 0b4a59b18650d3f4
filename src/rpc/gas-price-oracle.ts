// geth-style gas price oracle: a percentile of the effective tips paid in recent blocks, cached per head.
import type { Chain } from '../native/index.js';
import { rpc } from '../params.js';

/** Suggests a priority fee (eth_maxPriorityFeePerGas) and a gas price (eth_gasPrice). */
export class GasPriceOracle {
  private cached: { head: string; tip: bigint } | undefined;

  constructor(private readonly chain: Chain) {}

  /**
   * The params.rpc.gasPriceOraclePercentile-th percentile, over the last params.rpc.gasPriceOracleBlocks
   * blocks that carried transactions, of each block's tip at that percentile; the default tip when none did.
   */
  suggestTipCap(): bigint {
    const head = this.chain.head();
    const key = head.hash.toString('hex');
    if (this.cached?.head === key) return this.cached.tip;

    const blocks = Math.min(rpc.gasPriceOracleBlocks, head.number + 1);
    const history = this.chain.feeHistory(head.number, blocks, [rpc.gasPriceOraclePercentile]);
    const tips: bigint[] = [];
    history.reward.forEach((rewards, i) => {
      // Empty blocks report a zero reward that says nothing about what transactions pay.
      if ((history.gasUsedRatio[i] ?? 0) > 0 && rewards[0] !== undefined) tips.push(rewards[0]);
    });
    tips.sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
    const tip =
      tips.length === 0
        ? rpc.defaultPriorityFee
        : (tips[Math.floor(((tips.length - 1) * rpc.gasPriceOraclePercentile) / 100)] as bigint);
    this.cached = { head: key, tip };
    return tip;
  }

  /** Legacy gas price: the suggested tip plus the base fee of the next block. */
  suggestGasPrice(): bigint {
    return this.suggestTipCap() + this.chain.nextBaseFee();
  }
}
