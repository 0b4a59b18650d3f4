// Gas oracle: the next block's base fee plus the node's suggested tips at three percentiles, by the
// rule eth_gasPrice uses (chain/gas-price.ts): `propose` is eth_gasPrice itself (its percentile),
// `safe` and `fast` the same rule at the 10th and 90th.
import { suggestTips } from '../../chain/gas-price.js';
import { rpc } from '../../params.js';
import { routeModule, type Handlers } from '../definition.js';
import { gasOracleRouteDefs } from '../routes/gas-oracle.js';

const GWEI = 10n ** 9n;
const ORACLE_BLOCKS = 20;
/** safe, propose (eth_gasPrice's percentile), fast. */
const ORACLE_PERCENTILES = [10, rpc.gasPriceOraclePercentile, 90];
/** The history route's tip columns. */
const PERCENTILES = [10, 50, 90];

const gwei = (wei: bigint) => {
  const whole = wei / GWEI;
  const frac = (wei % GWEI).toString().padStart(9, '0').replace(/0+$/, '');
  return frac ? `${whole}.${frac}` : whole.toString();
};

export const gasOracleHandlers: Handlers<typeof gasOracleRouteDefs> = {
  getGasOracle: (_input, { node }) => {
    const s = suggestTips(node.chain, ORACLE_PERCENTILES);
    const nextBase = s.nextBaseFee;
    const [safe, propose, fast] = s.tips.map((tip) => nextBase + tip) as [bigint, bigint, bigint];
    return {
      lastBlock: s.head,
      baseFee: nextBase.toString(),
      safe: safe.toString(),
      propose: propose.toString(),
      fast: fast.toString(),
      blocks: s.history.gasUsedRatio.length,
      // Etherscan's gastracker fields (gwei as decimal strings).
      LastBlock: String(s.head),
      SafeGasPrice: gwei(safe),
      ProposeGasPrice: gwei(propose),
      FastGasPrice: gwei(fast),
      suggestBaseFee: gwei(nextBase),
      gasUsedRatio: s.history.gasUsedRatio.join(','),
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

export const gasOracleRoutes = routeModule(gasOracleRouteDefs, gasOracleHandlers);
