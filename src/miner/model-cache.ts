// The models a miner holds in memory. Hot models (--hot-models) are loaded at start and kept;
// others are loaded on first use and dropped, least recently used first, when the sum of the
// loaded models' minimum memory would exceed the budget (--max-memory; 0 = no cap beyond what
// the machine's tier allows). Only the models the miner registered for are ever loaded. When the
// chain's models change (update()), models retired leave memory and a model whose pins changed is
// loaded again from its new files on its next use.
import type { ModelInfo } from '../native/inference.js';
import { pinsKey, type FilePins } from '../inference/pins.js';
import type { InferenceEngine, ModelRunner } from './engine.js';

interface Entry {
  info: ModelInfo;
  runner: ModelRunner;
  lastUsed: number;
  /** The pins it was loaded with (pinsKey). */
  pins: string;
}

export class ModelCache {
  private readonly loaded = new Map<string, Entry>();
  private readonly loading = new Map<string, Promise<ModelRunner>>();
  private infos: Map<string, ModelInfo>;
  private hot: Set<string>;
  private allowed: Set<string>;
  /** The chain's pins, by model (absent: the registry's). */
  private pins = new Map<string, FilePins>();
  private clock = 0;

  constructor(
    private readonly engine: InferenceEngine,
    models: readonly ModelInfo[],
    allowed: readonly string[],
    hot: readonly string[],
    private readonly budgetMb: number,
    private readonly debug: (message: string) => void = () => {},
  ) {
    this.infos = new Map(models.map((m) => [m.id, m]));
    this.allowed = new Set(allowed);
    this.hot = new Set(hot);
  }

  /**
   * The models the miner serves changed (the chain approved, retired or re-pinned some): what is no
   * longer allowed leaves memory, and what is held with other pins is loaded again on its next use.
   */
  update(models: readonly ModelInfo[], allowed: readonly string[], hot: readonly string[], pins: ReadonlyMap<string, FilePins>): void {
    this.infos = new Map(models.map((m) => [m.id, m]));
    this.allowed = new Set(allowed);
    this.hot = new Set(hot);
    this.pins = new Map(pins);
    for (const [id, e] of this.loaded) {
      if (!this.allowed.has(id)) {
        this.loaded.delete(id);
        this.debug(`unloading ${id}: no longer served`);
      } else if (e.pins !== pinsKey(this.pins.get(id))) {
        this.loaded.delete(id);
        this.debug(`unloading ${id}: the chain pins other files for it; it is loaded again on its next use`);
      }
    }
  }

  /** Ids of the models in memory. */
  loadedIds(): string[] {
    return [...this.loaded.keys()];
  }

  /** Sum of the loaded models' minimum memory, MB. */
  usedMb(): number {
    let sum = 0;
    for (const e of this.loaded.values()) sum += e.info.minMemoryMb;
    return sum;
  }

  /** The loaded model, loading it (and making room) if needed. */
  async get(id: string): Promise<ModelRunner> {
    const entry = this.loaded.get(id);
    if (entry) {
      entry.lastUsed = ++this.clock;
      return entry.runner;
    }
    const info = this.infos.get(id);
    if (!info || !this.allowed.has(id)) throw new Error(`model ${id} is not one this miner registered for`);
    let pending = this.loading.get(id);
    if (!pending) {
      pending = this.load(info).finally(() => this.loading.delete(id));
      this.loading.set(id, pending);
    }
    return pending;
  }

  private async load(info: ModelInfo): Promise<ModelRunner> {
    this.makeRoom(info);
    this.debug(`loading ${info.id} (min memory ${info.minMemoryMb} MB)`);
    const started = Date.now();
    const pins = this.pins.get(info.id) ?? null;
    const runner = await this.engine.load(info, pins);
    // Kept unless the chain's models changed while it loaded (then the next use loads what they say).
    if (this.allowed.has(info.id) && pinsKey(this.pins.get(info.id)) === pinsKey(pins)) {
      this.loaded.set(info.id, { info, runner, lastUsed: ++this.clock, pins: pinsKey(pins) });
    }
    this.debug(`loaded ${info.id} in ${Date.now() - started} ms; models in memory: ${this.loadedIds().join(', ')} (${this.usedMb()} MB)`);
    return runner;
  }

  /** Drops least recently used models that are not hot until `info` fits the budget (or none is left to drop). */
  private makeRoom(info: ModelInfo): void {
    while (this.usedMb() + info.minMemoryMb > this.budgetMb) {
      let victim: Entry | undefined;
      for (const e of this.loaded.values()) {
        if (this.hot.has(e.info.id) || e.info.id === info.id) continue;
        if (!victim || e.lastUsed < victim.lastUsed) victim = e;
      }
      if (!victim) {
        this.debug(`${info.id} needs ${info.minMemoryMb} MB; ${this.usedMb()} MB of the ${this.budgetMb} MB budget is held by hot models; loading it anyway`);
        return;
      }
      this.loaded.delete(victim.info.id);
      this.debug(`unloading ${victim.info.id} to make room for ${info.id}`);
    }
  }
}
