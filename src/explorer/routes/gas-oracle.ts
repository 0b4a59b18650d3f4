// Gas Oracle: gas prices suggested from recent blocks.
import { object, routes, type Api } from '../schema.js';

const wei = { type: 'string', description: 'wei, decimal' } as const;
const gwei = { type: 'string', description: 'gwei, decimal (Etherscan gastracker field)' } as const;

export const gasOracleRouteDefs = routes([
  {
    id: 'getGasOracle',
    method: 'GET',
    path: '/gas-oracle',
    category: 'Gas Oracle',
    summary: "Safe, propose and fast gas prices by eth_gasPrice's rule at the 10th, 60th (propose: eth_gasPrice itself) and 90th percentiles of recent blocks' tips, with Etherscan's field names too.",
    auth: 'public',
    response: object({
      lastBlock: { type: 'integer' },
      baseFee: { type: 'string', description: "the next block's base fee, wei" },
      safe: wei,
      propose: { type: 'string', description: 'wei: eth_gasPrice' },
      fast: wei,
      blocks: { type: 'integer', description: 'blocks the suggestion read' },
      LastBlock: { type: 'string' },
      SafeGasPrice: gwei,
      ProposeGasPrice: gwei,
      FastGasPrice: gwei,
      suggestBaseFee: gwei,
      gasUsedRatio: { type: 'string', description: "the blocks' gas used ratios, comma-separated" },
    }),
  },
  {
    id: 'getGasHistory',
    method: 'GET',
    path: '/gas-oracle/history',
    category: 'Gas Oracle',
    summary: 'Base fee, gas used ratio and tip percentiles of the last blocks (1..1024, default 20).',
    auth: 'public',
    params: [{ name: 'blocks', in: 'query', description: 'how many blocks (1..1024)', schema: { type: 'integer', minimum: 1, maximum: 1024, default: 20 } }],
    response: {
      type: 'array',
      items: object({
        block: { type: 'integer' },
        baseFee: wei,
        gasUsedRatio: { type: 'number' },
        tips: object({ p10: wei, p50: wei, p90: wei }, [], 'tip percentiles of the block, wei'),
      }),
    },
  },
]);

export type GasOracleApi = Api<typeof gasOracleRouteDefs>;
