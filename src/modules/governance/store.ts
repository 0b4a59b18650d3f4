// The governance module's records: the keys under "governance/" (global, proposals, deposits,
// votes), values through the kernel's record codec, loading them from the chain's head, the
// changes made since the last take, and plain reads of them. Proposals in their deposit or voting
// period, with their deposits and votes, are held in memory; finished ones are read from the chain.
import type { Chain, RecordWrite } from '../../native/index.js';
import { system } from '../../params.js';
import { decodeRecord, RecordChanges } from '../kernel/records.js';
import { emptyGlobal } from './genesis.js';
import type { Address, DepositRecord, GovernanceGlobal, ProposalRecord, VoteRecord } from './types.js';

const PREFIX = 'governance/';
const GLOBAL_KEY = `${PREFIX}global`;
const PROPOSAL = `${PREFIX}proposal/`;
const DEPOSIT = `${PREFIX}deposit/`;
const VOTE = `${PREFIX}vote/`;
/** Proposal ids as 12 digits, so that keys sort by id. */
const idKey = (id: number) => String(id).padStart(12, '0');

export { emptyGlobal };

export class GovernanceStore {
  global: GovernanceGlobal = emptyGlobal();
  /** Active proposals (deposit or voting period) by id. */
  readonly proposals = new Map<number, ProposalRecord>();
  /** Deposits and votes of the active proposals, by proposal id then address. */
  readonly deposits = new Map<number, Map<Address, DepositRecord>>();
  readonly votes = new Map<number, Map<Address, VoteRecord>>();
  private readonly changes = new RecordChanges(system.governanceAddress as Address);

  constructor(private chain: Chain) {
    this.loadFrom(chain);
  }

  private loadFrom(chain: Chain): void {
    this.proposals.clear();
    this.deposits.clear();
    this.votes.clear();
    this.changes.clear();
    const g = chain.getAppValue(Buffer.from(GLOBAL_KEY));
    this.global = g ? decodeRecord<GovernanceGlobal>(g) : emptyGlobal();
    for (const id of this.global.active) {
      const p = this.readProposal(id);
      if (!p) throw new Error(`governance: active proposal ${id} has no record`);
      this.proposals.set(id, p);
      const deposits = new Map<Address, DepositRecord>();
      for (const e of chain.getAppEntries(Buffer.from(`${DEPOSIT}${idKey(id)}/`))) {
        const d = decodeRecord<DepositRecord>(e.value);
        deposits.set(d.depositor, d);
      }
      this.deposits.set(id, deposits);
      const votes = new Map<Address, VoteRecord>();
      for (const e of chain.getAppEntries(Buffer.from(`${VOTE}${idKey(id)}/`))) {
        const v = decodeRecord<VoteRecord>(e.value);
        votes.set(v.voter, v);
      }
      this.votes.set(id, votes);
    }
  }

  /** Throws away what was changed since the last commit and reads the records at the head again. */
  reload(chain: Chain): void {
    this.chain = chain;
    this.loadFrom(chain);
    this.changes.clear();
  }

  /** Records changed since the last call, as the block's writes (no value: deleted), sorted by key. */
  takeWrites(): RecordWrite[] {
    return this.changes.take();
  }

  // ---- saves ----

  saveGlobal(): void {
    this.changes.mark(GLOBAL_KEY, this.global);
  }

  /** Saves a proposal; an active one stays in memory, a finished one leaves it (with its deposits and votes). */
  saveProposal(p: ProposalRecord): void {
    this.changes.mark(PROPOSAL + idKey(p.id), p);
    if (p.status === 'deposit-period' || p.status === 'voting-period') {
      this.proposals.set(p.id, p);
      if (!this.deposits.has(p.id)) this.deposits.set(p.id, new Map());
      if (!this.votes.has(p.id)) this.votes.set(p.id, new Map());
    } else {
      this.proposals.delete(p.id);
      this.deposits.delete(p.id);
      this.votes.delete(p.id);
    }
  }

  saveDeposit(d: DepositRecord): void {
    this.deposits.get(d.proposalId)?.set(d.depositor, d);
    this.changes.mark(`${DEPOSIT}${idKey(d.proposalId)}/${d.depositor}`, d);
  }

  saveVote(v: VoteRecord): void {
    this.votes.get(v.proposalId)?.set(v.voter, v);
    this.changes.mark(`${VOTE}${idKey(v.proposalId)}/${v.voter}`, v);
  }

  // ---- reads ----

  private readProposal(id: number): ProposalRecord | undefined {
    const v = this.chain.getAppValue(Buffer.from(PROPOSAL + idKey(id)));
    return v ? decodeRecord<ProposalRecord>(v) : undefined;
  }

  /** A proposal by id: active ones from memory, finished ones from the chain. */
  proposal(id: number): ProposalRecord | undefined {
    return this.proposals.get(id) ?? this.pendingWrite<ProposalRecord>(PROPOSAL + idKey(id)) ?? this.readProposal(id);
  }

  /** Every proposal, newest first, from the chain (finished ones) and memory (active ones). */
  allProposals(): ProposalRecord[] {
    const byId = new Map<number, ProposalRecord>();
    for (const e of this.chain.getAppEntries(Buffer.from(PROPOSAL))) {
      const p = decodeRecord<ProposalRecord>(e.value);
      byId.set(p.id, p);
    }
    for (const p of this.proposals.values()) byId.set(p.id, p);
    return [...byId.values()].sort((a, b) => b.id - a.id);
  }

  /** A proposal's deposits, by depositor address. */
  depositsOf(id: number): DepositRecord[] {
    const live = this.deposits.get(id);
    if (live) return [...live.values()].sort((a, b) => (a.depositor < b.depositor ? -1 : 1));
    return this.chain.getAppEntries(Buffer.from(`${DEPOSIT}${idKey(id)}/`)).map((e) => decodeRecord<DepositRecord>(e.value));
  }

  /** A proposal's votes, by voter address. */
  votesOf(id: number): VoteRecord[] {
    const live = this.votes.get(id);
    if (live) return [...live.values()].sort((a, b) => (a.voter < b.voter ? -1 : 1));
    return this.chain.getAppEntries(Buffer.from(`${VOTE}${idKey(id)}/`)).map((e) => decodeRecord<VoteRecord>(e.value));
  }

  private pendingWrite<T>(key: string): T | undefined {
    const v = this.changes.markedValue(key);
    return v === undefined || v === null ? undefined : (v as T);
  }
}
