// eth_subscribe's kinds and their fan-out: each node event (a committed block, a transaction entering
// the pool) is read and serialized once, then framed per subscription as geth frames it:
// {"jsonrpc":"2.0","method":"eth_subscription","params":{"subscription":"0x..","result":...}}.
import { randomBytes } from 'node:crypto';
import type { Logger } from 'pino';
import { rpcProofView } from '../svc/compute.js';
import { rpcProposalEventView } from '../svc/governance.js';
import { rentEventView } from '../../modules/rent/queries.js';
import { checksumAddress } from '../../chain/address.js';
import type { NodeServices } from '../../services.js';
import type { Address, EpochSnapshot } from '../../modules/staking/types.js';
import type { ProducedBlock } from '../../native/index.js';
import { toData, toQuantity } from '../hex.js';
import { matchesLog, type LogMatcher, type RpcLog } from '../log-filter.js';
import type { WsMetrics } from './metrics.js';
import type { EpochWatch, ValidatorWatch, ValidatorChange } from '../../modules/staking/queries.js';

/** Every kind eth_subscribe accepts: geth's four, then the svc ones (docs/realtime.md). */
export const SUBSCRIPTION_KINDS = [
  'newHeads',
  'logs',
  'newPendingTransactions',
  'syncing',
  'svcNewEpochs',
  'svcValidatorStatus',
  'svcInferenceProofs',
  'svcProposals',
  'svcRentEvents',
] as const;
export type SubscriptionKind = (typeof SUBSCRIPTION_KINDS)[number];

/** What a subscription asked for beyond its kind. */
export type SubscriptionFilter =
  | { kind: 'newHeads' | 'syncing' | 'svcNewEpochs' | 'svcProposals' }
  | { kind: 'logs'; criteria: LogMatcher }
  | { kind: 'newPendingTransactions'; fullTransactions: boolean }
  | { kind: 'svcValidatorStatus'; validators: Set<Address> | null }
  | { kind: 'svcInferenceProofs'; validators: Set<Address> | null }
  | { kind: 'svcRentEvents'; accounts: Set<Address> | null };

/** The connection side of a subscription: where its notifications go. */
export interface SubscriptionOwner {
  notify(sub: Subscription, frame: string): void;
}

export class Subscription {
  /** geth's form: 0x and 16 random bytes in hex. */
  readonly id = toData(randomBytes(16));
  /** The frame up to the result, so that a notification is one concatenation. */
  private readonly head: string;

  constructor(
    readonly owner: SubscriptionOwner,
    readonly filter: SubscriptionFilter,
  ) {
    this.head = `{"jsonrpc":"2.0","method":"eth_subscription","params":{"subscription":"${this.id}","result":`;
  }

  get kind(): SubscriptionKind {
    return this.filter.kind;
  }

  /** The notification of a result already serialized. */
  frame(resultJson: string): string {
    return `${this.head}${resultJson}}}`;
  }
}

/** The header of a block as geth's newHeads sends it: the block object less its body and block-only fields. */
export function headerOf(block: Record<string, unknown>): Record<string, unknown> {
  const { transactions: _t, uncles: _u, withdrawals: _w, size: _s, totalDifficulty: _d, ...header } = block;
  return header;
}

const checksum = (a: Address): string => checksumAddress(Buffer.from(a.slice(2), 'hex'));

/** svcNewEpochs: the new epoch's set in svc_getValidatorSet's shape, and the block that started it. */
export function epochNotification(set: EpochSnapshot, block: ProducedBlock): Record<string, unknown> {
  return {
    epoch: toQuantity(set.epoch),
    startBlock: toQuantity(set.startHeight),
    blockNumber: toQuantity(block.head.number),
    blockHash: toData(block.head.hash),
    totalVotingPower: toQuantity(set.validators.reduce((s, m) => s + m.votingPower, 0n)),
    validators: set.validators.map((m) => ({ address: checksum(m.address), votingPower: toQuantity(m.votingPower), tokens: toQuantity(m.tokens) })),
  };
}

/** svcValidatorStatus: what changed for one validator in one block, with svc_getValidator's field names. */
export function validatorNotification(change: ValidatorChange, block: ProducedBlock): Record<string, unknown> {
  const v = change.validator;
  return {
    address: checksum(change.address),
    changes: change.kinds,
    status: v?.status ?? null,
    previousStatus: change.previousStatus,
    jailedUntil: v === undefined ? null : toQuantity(v.jailedUntil),
    totalStake: v === undefined ? null : toQuantity(v.tokens),
    votingPower: v === undefined ? null : toQuantity(v.votingPower),
    slashes: change.slashes.map((s) => ({
      height: toQuantity(s.height),
      infractionHeight: toQuantity(s.infractionHeight),
      fractionBps: s.fractionBps,
      burned: toQuantity(s.tokensBurned + s.unbondingBurned),
      reason: s.reason,
    })),
    blockNumber: toQuantity(block.head.number),
    blockHash: toData(block.head.hash),
  };
}

/** The live subscriptions of one server, by kind, fed by the node's events. */
export class SubscriptionHub {
  private readonly byKind = new Map<SubscriptionKind, Set<Subscription>>(SUBSCRIPTION_KINDS.map((k) => [k, new Set()]));
  /** Kept while someone subscribes to svcNewEpochs / svcValidatorStatus: their baseline is the previous block. */
  private epochs: EpochWatch | undefined;
  private validators: ValidatorWatch | undefined;
  private readonly onBlock = (block: ProducedBlock): void => this.guard('block', () => this.deliverBlock(block));
  private readonly onPendingTransaction = (hash: Buffer): void => this.guard('pending transaction', () => this.deliverPending(hash));

  constructor(
    private readonly services: NodeServices,
    private readonly metrics: WsMetrics,
    private readonly log: Logger,
  ) {
    services.events.on('block', this.onBlock);
    services.events.on('pendingTransaction', this.onPendingTransaction);
  }

  add(sub: Subscription): void {
    this.byKind.get(sub.kind)!.add(sub);
    this.metrics.subscriptions.inc({ kind: sub.kind });
    const staking = this.services.queries.staking;
    if (sub.kind === 'svcNewEpochs') this.epochs ??= staking.epochWatch();
    if (sub.kind === 'svcValidatorStatus') this.validators ??= staking.validatorWatch();
  }

  remove(sub: Subscription): boolean {
    const set = this.byKind.get(sub.kind)!;
    if (!set.delete(sub)) return false;
    this.metrics.subscriptions.dec({ kind: sub.kind });
    if (set.size === 0 && sub.kind === 'svcNewEpochs') this.epochs = undefined;
    if (set.size === 0 && sub.kind === 'svcValidatorStatus') this.validators = undefined;
    return true;
  }

  /** Stops listening to the node; the subscriptions themselves end with their connections. */
  close(): void {
    this.services.events.off('block', this.onBlock);
    this.services.events.off('pendingTransaction', this.onPendingTransaction);
  }

  /** A listener that throws would keep the node's other listeners from running: log instead. */
  private guard(what: string, run: () => void): void {
    try {
      run();
    } catch (err) {
      this.log.error({ err }, `ws subscriptions failed to deliver a ${what}`);
    }
  }

  private fanOut(kind: SubscriptionKind, subs: Iterable<Subscription>, resultJson: string): void {
    let sent = 0;
    for (const sub of subs) {
      sub.owner.notify(sub, sub.frame(resultJson));
      sent++;
    }
    if (sent > 0) this.metrics.notifications.inc({ kind }, sent);
  }

  private deliverBlock(block: ProducedBlock): void {
    const { chain } = this.services;
    const number = block.head.number;
    const heads = this.byKind.get('newHeads')!;
    if (heads.size > 0) {
      const full = chain.getBlock({ number }, false);
      if (full !== null) this.fanOut('newHeads', heads, JSON.stringify(headerOf(full)));
    }

    const logSubs = this.byKind.get('logs')!;
    if (logSubs.size > 0) {
      const logs: RpcLog[] = chain.getBlockLogs(number);
      // Serialized once per log, and only when some subscription wants it.
      const json: (string | undefined)[] = [];
      let sent = 0;
      for (const sub of logSubs) {
        if (sub.filter.kind !== 'logs') continue;
        const criteria = sub.filter.criteria;
        for (let i = 0; i < logs.length; i++) {
          if (!matchesLog(logs[i]!, criteria, number)) continue;
          json[i] ??= JSON.stringify(logs[i]);
          sub.owner.notify(sub, sub.frame(json[i]!));
          sent++;
        }
      }
      if (sent > 0) this.metrics.notifications.inc({ kind: 'logs' }, sent);
    }

    if (this.epochs !== undefined) {
      const set = this.epochs.next();
      if (set !== undefined) this.fanOut('svcNewEpochs', this.byKind.get('svcNewEpochs')!, JSON.stringify(epochNotification(set, block)));
    }

    this.deliverProofs(number);

    if (this.validators !== undefined) {
      for (const change of this.validators.next()) {
        const json = JSON.stringify(validatorNotification(change, block));
        const subs = [...this.byKind.get('svcValidatorStatus')!].filter(
          (s) => s.filter.kind === 'svcValidatorStatus' && (s.filter.validators === null || s.filter.validators.has(change.address)),
        );
        this.fanOut('svcValidatorStatus', subs, json);
      }
    }

    this.deliverProposals(number);
    this.deliverRentEvents(number);
  }

  /** svcRentEvents: accounts made dormant and reactivated in the block (all, or the ones asked for). */
  private deliverRentEvents(number: number): void {
    const subs = this.byKind.get('svcRentEvents')!;
    if (subs.size === 0) return;
    for (const e of this.services.queries.rent.blockEvents(number)) {
      const json = JSON.stringify(rentEventView(e, { amount: toQuantity, quantity: toQuantity }));
      const targets = [...subs].filter((s) => s.filter.kind === 'svcRentEvents' && (s.filter.accounts === null || s.filter.accounts.has(e.account)));
      this.fanOut('svcRentEvents', targets, json);
    }
  }

  /** svcProposals: each governance event of the block, in the order the block made them. */
  private deliverProposals(number: number): void {
    const subs = this.byKind.get('svcProposals')!;
    if (subs.size === 0) return;
    for (const e of this.services.queries.governance.blockEvents(number)) {
      this.fanOut('svcProposals', subs, JSON.stringify(rpcProposalEventView(e)));
    }
  }

  /** svcInferenceProofs: each proof accepted in the block, then each spot-check the block decided. */
  private deliverProofs(number: number): void {
    const subs = this.byKind.get('svcInferenceProofs')!;
    const events = this.services.app.lastComputeEvents;
    if (subs.size === 0 || events === undefined || events.height !== number) return;
    const items = [
      ...events.accepted.map((p) => ({ event: 'accepted' as const, proof: p })),
      ...events.decided.map((p) => ({ event: p.spotCheck === 'passed' ? ('spotCheckPassed' as const) : ('spotCheckFailed' as const), proof: p })),
    ];
    for (const { event, proof } of items) {
      const json = JSON.stringify({ event, blockNumber: toQuantity(number), ...rpcProofView(proof) });
      const targets = [...subs].filter(
        (s) => s.filter.kind === 'svcInferenceProofs' && (s.filter.validators === null || s.filter.validators.has(proof.validator)),
      );
      this.fanOut('svcInferenceProofs', targets, json);
    }
  }

  private deliverPending(hash: Buffer): void {
    const subs = this.byKind.get('newPendingTransactions')!;
    if (subs.size === 0) return;
    const hashJson = JSON.stringify(toData(hash));
    let fullJson: string | null | undefined;
    let sent = 0;
    for (const sub of subs) {
      if (sub.filter.kind !== 'newPendingTransactions') continue;
      if (!sub.filter.fullTransactions) {
        sub.owner.notify(sub, sub.frame(hashJson));
        sent++;
        continue;
      }
      // Built once per transaction and shared by every subscription that wants objects.
      if (fullJson === undefined) {
        const pooled = this.services.mempool.get(hash);
        fullJson = pooled === undefined ? null : JSON.stringify(this.services.chain.pendingTransactionJson(pooled.raw, pooled.tx.from));
      }
      if (fullJson === null) continue;
      sub.owner.notify(sub, sub.frame(fullJson));
      sent++;
    }
    if (sent > 0) this.metrics.notifications.inc({ kind: 'newPendingTransactions' }, sent);
  }
}
