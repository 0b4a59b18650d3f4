// The registry of system modules: which address is which module, and the order of block hooks.
// ChainApp routes every module transaction, eth_call and hook through it (Cosmos SDK's module
// manager, with SetOrderBeginBlockers / SetOrderEndBlockers as `begin` and `end`).
import type { BalanceMove, Chain, RecordWrite } from '../../native/index.js';
import type { Address, BlockInfo, BlockRules, EpochPosition, HookResult, SystemModule } from './module.js';
import { decodeMessage, encodeMessage, type ModuleMessage } from './messages.js';

export interface HookOrder {
  /** Module names in the order their beginBlock runs. */
  begin: readonly string[];
  /** Module names in the order their endBlock runs. */
  end: readonly string[];
}

export class ModuleRegistry {
  private readonly byAddress = new Map<string, SystemModule>();
  private readonly byName = new Map<string, SystemModule>();
  private readonly begin: SystemModule[];
  private readonly end: SystemModule[];

  constructor(
    readonly modules: readonly SystemModule[],
    order: HookOrder,
  ) {
    for (const m of modules) {
      const address = m.address.toLowerCase();
      if (this.byAddress.has(address)) throw new Error(`modules ${this.byAddress.get(address)!.name} and ${m.name} share the address ${address}`);
      if (this.byName.has(m.name)) throw new Error(`two modules are named ${m.name}`);
      this.byAddress.set(address, m);
      this.byName.set(m.name, m);
    }
    const ordered = (names: readonly string[], hook: string): SystemModule[] => {
      const list = names.map((n) => {
        const m = this.byName.get(n);
        if (!m) throw new Error(`the ${hook} order names ${n}, which is not registered`);
        return m;
      });
      const missing = modules.filter((m) => !names.includes(m.name));
      if (missing.length > 0 || new Set(names).size !== names.length) {
        throw new Error(`the ${hook} order must name every module once (missing: ${missing.map((m) => m.name).join(', ') || 'none'})`);
      }
      return list;
    };
    this.begin = ordered(order.begin, 'beginBlock');
    this.end = ordered(order.end, 'endBlock');
  }

  /** The module at `to` (20 bytes or a 0x address), if `to` is one. */
  get(to: Buffer | Address | null | undefined): SystemModule | undefined {
    if (to === null || to === undefined) return undefined;
    const key = typeof to === 'string' ? to.toLowerCase() : `0x${to.toString('hex')}`;
    return this.byAddress.get(key);
  }

  /** Whether a transaction to `to` is decided by a module instead of the EVM. */
  isModule(to: Buffer | Address | null | undefined): boolean {
    return this.get(to) !== undefined;
  }

  /** The system messages this node proposes for the next block, module by module. */
  proposeMessages(): Buffer[] {
    return this.modules.flatMap((m) => (m.proposeMessages?.() ?? []).map(encodeMessage));
  }

  /** Why a block's messages cannot be in it (undecodable, no such module, or refused by theirs); null when they can. */
  checkMessages(raw: readonly Buffer[]): string | null {
    const grouped = this.groupMessages(raw);
    if (typeof grouped === 'string') return grouped;
    for (const [m, list] of grouped) {
      const problem = m.checkMessages ? m.checkMessages(list) : list.length > 0 ? `module ${m.name} takes no messages` : null;
      if (problem !== null) return `${m.name}: ${problem}`;
    }
    return null;
  }

  /** The signatures carried by messages this node did not propose (checked by checkMessages first); null when they verify. */
  async verifyMessages(raw: readonly Buffer[], chainId: number): Promise<string | null> {
    const grouped = this.groupMessages(raw);
    if (typeof grouped === 'string') return grouped;
    for (const [m, list] of grouped) {
      const problem = m.verifyMessages ? await m.verifyMessages(list, chainId) : null;
      if (problem !== null) return `${m.name}: ${problem}`;
    }
    return null;
  }

  /**
   * A message from the network's mempool: its canonical bytes, its module's shape checks and
   * signatures, then the module's queue; null when queued, else why not.
   */
  async admitMessage(bytes: Buffer, chainId: number): Promise<string | null> {
    let message: ModuleMessage;
    try {
      message = decodeMessage(bytes);
    } catch (err) {
      return `the message does not decode: ${(err as Error).message}`;
    }
    // The block carries the canonical bytes; the mempool drops what a block carried by its bytes.
    if (!encodeMessage(message).equals(bytes)) return 'the message is not in its canonical encoding';
    const problem = this.checkMessages([bytes]) ?? (await this.verifyMessages([bytes], chainId));
    if (problem !== null) return problem;
    const m = this.byName.get(message.module)!;
    if (!m.queueMessage) return `module ${m.name} takes no messages from the mempool`;
    return m.queueMessage(message);
  }

  /** Whether the message's module still queues it. */
  isMessageQueued(bytes: Buffer): boolean {
    try {
      const message = decodeMessage(bytes);
      return this.byName.get(message.module)?.isQueued?.(message) ?? false;
    } catch {
      return false;
    }
  }

  /** Hands every module its messages of the block (checked by checkMessages). */
  deliverMessages(raw: readonly Buffer[]): void {
    const grouped = this.groupMessages(raw);
    if (typeof grouped === 'string') throw new Error(`a block's messages: ${grouped}`);
    for (const m of this.modules) m.deliverMessages?.(grouped.get(m) ?? []);
  }

  private groupMessages(raw: readonly Buffer[]): Map<SystemModule, ModuleMessage[]> | string {
    const out = new Map<SystemModule, ModuleMessage[]>();
    for (const [i, bytes] of raw.entries()) {
      let message: ModuleMessage;
      try {
        message = decodeMessage(bytes);
      } catch (err) {
        return `message ${i} does not decode: ${(err as Error).message}`;
      }
      const m = this.byName.get(message.module);
      if (!m) return `message ${i} is for ${JSON.stringify(message.module)}, which is not a module`;
      const list = out.get(m) ?? [];
      list.push(message);
      out.set(m, list);
    }
    return out;
  }

  /** Every module's beginBlock, in order. */
  beginBlock(block: BlockInfo): HookResult {
    return sum(this.begin.map((m) => this.observed(m.name, m.beginBlock(block))));
  }

  /** Every module's endBlock, in order. */
  endBlock(block: BlockInfo): HookResult {
    return sum(this.end.map((m) => this.observed(m.name, m.endBlock(block))));
  }

  /** Hands `module`'s balance moves (a hook's, or a transaction's it decided) to the modules that observe moves. */
  observeMoves(module: string, moves: readonly BalanceMove[]): void {
    if (moves.length === 0) return;
    for (const m of this.modules) m.observeMoves?.(module, moves);
  }

  private observed(module: string, r: HookResult): HookResult {
    this.observeMoves(module, [...(r.preMoves ?? []), ...r.moves]);
    return r;
  }

  /** Why a transaction from `from` to `to` (null: a creation) cannot run, by the first module that refuses it; null when none does. */
  refusal(from: Buffer, to: Buffer | null): string | null {
    for (const m of this.modules) {
      const reason = m.refusal?.(from, to) ?? null;
      if (reason !== null) return reason;
    }
    return null;
  }

  /** What the native executor enforces for the modules in the block being built: every module's rules, merged (one module per rule). */
  blockRules(): BlockRules {
    const rules: BlockRules = {};
    for (const m of this.modules) {
      const r = m.blockRules?.();
      if (!r) continue;
      if (r.dormancy) {
        if (rules.dormancy) throw new Error(`two modules set the block's dormancy rules (${m.name} the second)`);
        rules.dormancy = r.dormancy;
      }
    }
    return rules;
  }

  /** Where a block at `height` stands in the chain's epochs, as the module that keeps them says. */
  epochOf(height: number): EpochPosition {
    const keepers = this.modules.filter((m) => m.epochOf);
    if (keepers.length !== 1) throw new Error(`one module keeps the chain's epochs, ${keepers.length} do (${keepers.map((m) => m.name).join(', ') || 'none'})`);
    return keepers[0]!.epochOf!(height);
  }

  /** The extra data of a block this node proposes: the proposer's, with every module's announcement added in registration order. */
  proposerExtraData(extraData: Buffer): Buffer {
    return this.modules.reduce((extra, m) => m.proposerExtraData?.(extra) ?? extra, extraData);
  }

  /** Every module's changed records, module by module in registration order. */
  takeWrites(): RecordWrite[] {
    return this.modules.flatMap((m) => m.takeWrites());
  }

  committed(): void {
    for (const m of this.modules) m.committed();
  }

  reload(chain: Chain): void {
    for (const m of this.modules) m.reload(chain);
  }
}

function sum(results: HookResult[]): HookResult {
  return {
    moves: results.flatMap((r) => r.moves),
    preMoves: results.flatMap((r) => r.preMoves ?? []),
    minted: results.reduce((a, r) => a + r.minted, 0n),
    burned: results.reduce((a, r) => a + r.burned, 0n),
  };
}
