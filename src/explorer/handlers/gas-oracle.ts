// Gas oracle: the next block's base fee plus the median over recent blocks of each tip percentile.
import type { Handler } from '../definition.js';

const GWEI = 10n ** 9n;
const ORACLE_BLOCKS = 20;
const PERCENTILES = [10, 50, 90];

const gwei = (wei: bigint) => {
  const whole = wei / GWEI;
  const frac = (wei % GWEI).toString().padStart(9, '0').replace(/0+$/, '');
  return frac ? `${whole}.${frac}` : whole.toString();
};

export const gasOracleHandlers: Record<string, Handler> = {
  getGasOracle: (_input, { node }) => {
    const { chain } = node;
    const head = chain.head().number;
    const h = chain.feeHistory(head, Math.min(ORACLE_BLOCKS, head + 1), PERCENTILES);
    const nextBase = chain.nextBaseFee();
    const tip = (i: number) => {
      const values = h.reward.map((r) => r[i] ?? 0n).sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
      return values.length === 0 ? 0n : values[Math.floor(values.length / 2)]!;
    };
    const [safe, propose, fast] = PERCENTILES.map((_p, i) => nextBase + tip(i)) as [bigint, bigint, bigint];
    return {
      lastBlock: head,
      baseFee: nextBase.toString(),
      safe: safe.toString(),
      propose: propose.toString(),
      fast: fast.toString(),
      blocks: h.gasUsedRatio.length,
      // Etherscan's gastracker fields (gwei as decimal strings).
      LastBlock: String(head),
      SafeGasPrice: gwei(safe),
      ProposeGasPrice: gwei(propose),
      FastGasPrice: gwei(fast),
      suggestBaseFee: gwei(nextBase),
      gasUsedRatio: h.gasUsedRatio.join(','),
    };
  },

  getGasHistory: ({ query }, { node }) => {
    const { chain } = node;
    const head = chain.head().number;
    const count = Math.min((query.blocks as number | undefined) ?? ORACLE_BLOCKS, head + 1);
    const h = chain.feeHistory(head, count, PERCENTILES);
    return h.gasUsedRatio.map((ratio, i) => ({
      block: h.oldestBlock + i,
      baseFee: (h.baseFeePerGas[i] ?? 0n).toString(),
      gasUsedRatio: ratio,
      tips: { p10: (h.reward[i]?.[0] ?? 0n).toString(), p50: (h.reward[i]?.[1] ?? 0n).toString(), p90: (h.reward[i]?.[2] ?? 0n).toString() },
    }));
  },
};
