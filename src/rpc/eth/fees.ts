// Fees: eth_gasPrice and eth_maxPriorityFeePerGas from the oracle, eth_feeHistory from the chain.
import { rpc } from '../../params.js';
import { blockNumberOf } from '../block-tags.js';
import { UnknownBlockError } from '../errors.js';
import { toQuantity } from '../hex.js';
import { method, optional, required, type MethodTable } from '../method.js';
import { parseBlockCount, parseBlockNumberOrTag, parsePercentiles } from '../validate.js';

interface FeeHistoryJson {
  oldestBlock: string;
  baseFeePerGas: string[];
  gasUsedRatio: number[];
  reward?: string[][];
}

export const feeMethods: MethodTable = {
  eth_gasPrice: method([], (ctx) => toQuantity(ctx.gasPrice.suggestGasPrice())),

  eth_maxPriorityFeePerGas: method([], (ctx) => toQuantity(ctx.gasPrice.suggestTipCap())),

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
