// svc_* methods about the chain and this node: epoch, network statistics, node info, pool contents.
import { packageVersion } from '../../version.js';
import { averageBlockTimeMs, blockWindow, epochDurationMs, statsWindowStart, transactionsPerSecond } from '../../chain/block-time.js';
import { toAddress } from '../../modules/kernel/module.js';
import { checksumAddress } from '../../chain/address.js';
import type { JournalHealth } from '../../chain/pool-journal.js';
import { toData, toQuantity } from '../hex.js';
import { method, type MethodTable, type RpcContext } from '../method.js';

/** Blocks behind the head that network statistics look at. */
const STATS_WINDOW_BLOCKS = 100;

interface NetworkWindow {
  head: string;
  avgBlockTimeMs: number;
  tps: number;
  activeAddresses: number;
}

let cached: NetworkWindow | undefined;

/** The transaction journal's health as svc_getNodeInfo shows it (since as an ISO time). */
function journalInfo(h: JournalHealth): { status: JournalHealth['status']; reason: string | null; since: string | null; failures: number } {
  return { status: h.status, reason: h.reason, since: h.since === null ? null : new Date(h.since).toISOString(), failures: h.failures };
}

/** Block time, throughput and distinct senders over the last blocks, computed once per head. */
function networkWindow(ctx: RpcContext): NetworkWindow {
  const { chain } = ctx.services;
  const head = chain.head();
  const key = head.hash.toString('hex');
  if (cached?.head === key) return cached;
  const oldest = statsWindowStart(head.number, STATS_WINDOW_BLOCKS);
  const senders = new Set<string>();
  for (let n = oldest + 1; n <= head.number; n++) {
    const block = chain.getBlock({ number: n }, true);
    for (const tx of (block?.['transactions'] ?? []) as { from: string }[]) senders.add(tx.from.toLowerCase());
  }
  const w = blockWindow(chain, oldest);
  cached = { head: key, avgBlockTimeMs: averageBlockTimeMs(w), tps: transactionsPerSecond(w), activeAddresses: senders.size };
  return cached;
}

export const networkMethods: MethodTable = {
  svc_getEpoch: method([], (ctx) => {
    const { chain, queries, config } = ctx.services;
    const head = chain.head();
    const params = queries.staking.params;
    const epoch = queries.staking.epochOf(head.number);
    const start = queries.staking.epochStart(epoch);
    const startBlock = chain.getBlock({ number: start }, false);
    return {
      number: toQuantity(epoch),
      startTime: (startBlock?.['timestamp'] as string | undefined) ?? toQuantity(head.timestamp),
      startTimeMs: (startBlock?.['timestampMs'] as string | undefined) ?? toQuantity(head.timestampMs),
      durationMs: toQuantity(epochDurationMs(chain, params.epochLengthBlocks, config.blockTimeMs, config.consensus === 'cometbft')),
      slot: head.number - start,
      startBlock: toQuantity(start),
      lengthBlocks: params.epochLengthBlocks,
    };
  }),

  svc_getNetworkStats: method([], (ctx) => {
    const { chain, app, queries } = ctx.services;
    const head = chain.head();
    const w = networkWindow(ctx);
    const validators = queries.staking.validators();
    return {
      latestBlock: toQuantity(head.number),
      latestTimestamp: toQuantity(head.timestamp),
      avgBlockTimeMs: w.avgBlockTimeMs,
      tps: w.tps,
      activeAddresses: w.activeAddresses,
      totalValidators: validators.length,
      activeValidators: validators.filter((v) => v.status === 'active').length,
      totalStaked: toQuantity(queries.staking.totals().totalStaked),
      totalSupply: toQuantity(app.supply()),
    };
  }),

  svc_getNodeInfo: method([], (ctx) => {
    const { chain, queries, config, startingBlock, coinbase } = ctx.services;
    const head = chain.head().number;
    const own = queries.staking.validator(toAddress(coinbase));
    const production = ctx.services.production.status();
    const { syncing, highestBlock } = ctx.services.network.sync();
    return {
      version: `svc-node/v${packageVersion()}`,
      chainId: config.chainId,
      peerCount: ctx.services.network.peerCount(),
      isValidator: own?.status === 'active',
      syncing,
      startingBlock,
      currentBlock: head,
      highestBlock,
      validatorAddress: checksumAddress(coinbase),
      network: config.network,
      computeMode: ctx.services.compute.mode,
      blockProduction: {
        status: production.status,
        reason: production.reason,
        since: production.since === null ? null : new Date(production.since).toISOString(),
        attempts: production.attempts,
        headAgeMs: production.headAgeMs,
        staleAfterMs: production.staleAfterMs,
      },
      transactionJournal: journalInfo(ctx.services.transactionJournal.health()),
    };
  }),

  svc_getPendingTransactions: method([], (ctx) => ctx.services.mempool.hashes().map((h) => toData(h))),
};
