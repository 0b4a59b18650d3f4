// Fees: eth_gasPrice and eth_maxPriorityFeePerGas from the oracle, eth_feeHistory from the chain,
// eth_blobBaseFee (the chain has no blobs: always the minimum).
import { rpc } from '../../params.js';
import { blockNumberOf } from '../block-tags.js';
import { UnknownBlockError } from '../errors.js';
import { toQuantity } from '../hex.js';
import { method, optional, required, type MethodTable } from '../method.js';
import { parseBlockCount, parseBlockNumberOrTag, parsePercentiles } from '../validate.js';

/** EIP-4844's MIN_BASE_FEE_PER_BLOB_GAS: the blob base fee at excess blob gas 0. */
const MIN_BLOB_BASE_FEE = 1n;

interface FeeHistoryJson {
  oldestBlock: string;
  baseFeePerGas: string[];
  gasUsedRatio: number[];
  reward?: string[][];
}

export const feeMethods: MethodTable = {
  eth_gasPrice: method([], (ctx) => toQuantity(ctx.gasPrice.suggestGasPrice())),

  eth_maxPriorityFeePerGas: method([], (ctx) => toQuantity(ctx.gasPrice.suggestTipCap())),

  // EIP-7516's BLOBBASEFEE: the chain carries no blobs, so its excess blob gas is always 0 and the
  // blob base fee is EIP-4844's minimum, 1 wei (what geth answers on a chain whose blocks hold none).
  eth_blobBaseFee: method([], () => toQuantity(MIN_BLOB_BASE_FEE)),

  eth_feeHistory: method(
    [required(parseBlockCount), required(parseBlockNumberOrTag), optional(parsePercentiles(rpc.maxFeeHistoryPercentiles))],
    (ctx, [blockCount, newestBlock, percentiles]) => {
      const { chain } = ctx.services;
      const newest = blockNumberOf(chain, newestBlock);
      if (newest === null) {
        const requested = 'number' in newestBlock ? newestBlock.number.toString() : newestBlock.tag;
        throw new UnknownBlockError(`request beyond head block: requested ${requested}, head ${chain.head().number}`);
      }
      // geth caps the count silently rather than failing: at most maxFeeHistoryBlocks, never before genesis.
      const blocks = Math.min(blockCount, rpc.maxFeeHistoryBlocks, newest + 1);
      const withRewards = percentiles !== undefined && percentiles.length > 0;
      if (blocks === 0) {
        const empty: FeeHistoryJson = { oldestBlock: toQuantity(0), baseFeePerGas: [], gasUsedRatio: [] };
        return withRewards ? { ...empty, reward: [] } : empty;
      }
      const history = chain.feeHistory(newest, blocks, percentiles ?? []);
      const result: FeeHistoryJson = {
        oldestBlock: toQuantity(history.oldestBlock),
        baseFeePerGas: history.baseFeePerGas.map(toQuantity),
        gasUsedRatio: history.gasUsedRatio,
      };
      if (withRewards) result.reward = history.reward.map((r) => r.map(toQuantity));
      return result;
    },
  ),
};
