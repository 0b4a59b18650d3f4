// The node's compute service: resolves the compute mode at start, announces it for the node's
// validator, and runs what the mode needs: the proof-of-work search (pow), or the models, proof
// intake and spot-checks (inference). Consensus effects all go through the compute module's queues.
// In inference mode the models follow the chain: after each block, models governance approved are
// loaded and retired ones dropped (NodeModelSet.observe), without a restart.
import type { Logger } from 'pino';
import type { ChainApp } from '../chain/app.js';
import type { NodeEvents } from '../chain/events.js';
import type { Chain } from '../native/index.js';
import type { InferenceBackend } from '../native/inference.js';
import { epochOfHeight } from '../modules/staking/epoch.js';
import type { Address } from '../modules/compute/types.js';
import type { ComputeModeSetting } from '../params.js';
import { ComputeIntake, ProofPrecheck } from './intake.js';
import { chainModelsOf, resolveComputeMode, type ChainModels, type NodeModelSet } from './models.js';
import { PowMiner, type PowStats } from './pow-miner.js';
import { SpotChecker } from './spot-checker.js';

export interface NodeComputeOptions {
  app: ChainApp;
  chain: Chain;
  events: NodeEvents;
  chainId: number;
  validator: Address;
  setting: ComputeModeSetting;
  backend: InferenceBackend;
  modelDir: string;
  models?: readonly string[];
  powThreads: number;
  /** Share of proofs re-executed before acceptance, basis points (default params.proofPrecheck.rateBps). */
  proofPrecheckBps?: number;
  log: Logger;
}

export class NodeCompute {
  private readonly onBlock = (): void => {
    this.spotChecker?.poll();
    if (this.models && this.chainModels) this.models.observe(this.chainModels());
  };

  private constructor(
    /** `none`: pow mode with no search thread (--pow-threads 0). */
    readonly mode: 'pow' | 'inference' | 'none',
    readonly reason: string,
    readonly intake: ComputeIntake,
    readonly models: NodeModelSet | null,
    readonly powMiner: PowMiner | null,
    readonly spotChecker: SpotChecker | null,
    private readonly events: NodeEvents,
    /** The chain's approved models and pins at the last commit (inference mode). */
    private readonly chainModels: (() => ChainModels) | null = null,
  ) {
    events.on('block', this.onBlock);
  }

  static async start(o: NodeComputeOptions): Promise<NodeCompute> {
    const log = o.log.child({ module: 'compute' });
    const { compute, staking } = o.app;
    const resolved = await resolveComputeMode({
      setting: o.setting,
      backend: o.backend,
      modelDir: o.modelDir,
      ...(o.models ? { models: o.models } : {}),
      params: compute.params,
      chain: chainModelsOf(compute),
      log,
    });
    const mode = resolved.mode === 'pow' && o.powThreads === 0 ? 'none' : resolved.mode;
    const reason = mode === 'none' ? `${resolved.reason}, with --pow-threads 0: no search, no compute contribution` : resolved.reason;
    log.info({ mode, setting: o.setting, reason }, 'compute mode');
    o.app.compute.announceComputeMode(mode);
    const head = () => {
      const h = o.chain.head();
      return { number: h.number, timestamp: h.timestamp, epoch: epochOfHeight(h.number + 1, staking.params) };
    };
    const intake = new ComputeIntake(compute, o.chainId, o.validator, resolved.models, head, log, new ProofPrecheck(o.proofPrecheckBps));
    let miner: PowMiner | null = null;
    let checker: SpotChecker | null = null;
    if (mode === 'pow') {
      miner = new PowMiner(compute, o.chain, o.validator, o.powThreads, log);
      miner.start();
    } else if (mode === 'inference') {
      checker = new SpotChecker(compute, resolved.models!, log);
      const spotChecker = checker;
      resolved.models!.onChange = () => spotChecker.modelsChanged();
    }
    return new NodeCompute(mode, reason, intake, resolved.models, miner, checker, o.events, mode === 'inference' ? () => chainModelsOf(compute) : null);
  }

  powStats(): PowStats | null {
    return this.powMiner?.stats() ?? null;
  }

  async stop(): Promise<void> {
    this.events.off('block', this.onBlock);
    await this.powMiner?.stop();
    this.models?.close();
    await this.spotChecker?.idle();
  }
}
