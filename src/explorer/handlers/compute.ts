// Compute: the inference-mining state of the compute module (docs/compute.md) — the module's totals,
// miners with their open tasks, tasks, proofs, and what each block accepted and decided. The same
// facts as the svc_*Inference* methods (src/rpc/svc/compute.ts), in the explorer's style: amounts
// and FLOPs as decimal strings, block heights as integers, addresses checksummed.
import { computeStats } from '../../compute/views.js';
import { proofView, type ViewStyle } from '../../modules/compute/queries.js';
import type { MinerRecord, ProofRecord } from '../../modules/compute/types.js';
import { routeModule, type ExplorerServices, type Handlers } from '../definition.js';
import { BadRequestError, NotFoundError } from '../envelope.js';
import { decodeCursor, encodeCursor, listPage, PAGE } from '../pagination.js';
import { be, readBe } from '../store.js';
import { computeRouteDefs, type ComputeMiner, type ComputeProof, type ComputeStats, type ComputeTask } from '../routes/compute.js';

type Hex = `0x${string}`;
const lower = (v: unknown): Hex => (v as string).toLowerCase() as Hex;

/** The explorer's way of writing the shared views' numbers: decimal strings for amounts, integers otherwise. */
const EXPLORER_STYLE: ViewStyle = { amount: (v) => v.toString(), height: (n) => n, counter: (n) => n };

/**
 * The module's views written in EXPLORER_STYLE (heights and counters as integers) have the route's
 * types; the shared views type a height as either style's, so the explorer names the one its style gives.
 */
const inExplorerStyle = <T>(view: unknown): T => view as T;

export const explorerProofView = (p: ProofRecord): ComputeProof => inExplorerStyle<ComputeProof>(proofView(p, EXPLORER_STYLE));

function explorerMinerView(services: ExplorerServices, m: MinerRecord): ComputeMiner {
  const open = services.node.queries.compute.openTasksOf(m.wallet);
  return {
    ...inExplorerStyle<Omit<ComputeMiner, 'openTaskCount' | 'openTasks'>>(services.node.queries.compute.minerView(m, EXPLORER_STYLE)),
    openTaskCount: open.length,
    openTasks: open.map((t) => ({ taskId: t.id, modelId: t.modelId, kind: t.kind, assignedEpoch: t.assignedEpoch, deadlineEpoch: t.deadlineEpoch })),
  };
}

/** Blocks one page of /compute/proofs looks through before it stops short (its `next` goes on from there). */
const PROOF_SCAN_BLOCKS = 5_000;
const limitOf = (q: Record<string, unknown>) => (q.limit as number | undefined) ?? PAGE.defaultLimit;

export const computeHandlers: Handlers<typeof computeRouteDefs> = {
  // svc_getApprovedModels's list: the chain's model registry, each approved, retiring or retired.
  getComputeModels: (_input, services) => {
    return services.node.queries.compute.approvedModelViews();
  },

  // The open tasks (pending or assigned), newest first: the module's open set that svc_getInferenceTasks filters per miner.
  listComputeTasks: ({ query }, services) => {
    const sorted = services.node.queries.compute
      .openTasks()
      .map((t) => ({ key: Buffer.concat([be(t.createdAt, 8), Buffer.from(t.id.slice(2), 'hex')]), t }))
      .sort((a, b) => b.key.compare(a.key));
    return listPage(decodeCursor(query.cursor as string | undefined), limitOf(query), sorted, 40, (e) => inExplorerStyle<ComputeTask>(services.node.queries.compute.taskView(e.t, EXPLORER_STYLE)));
  },

  // Accepted proofs, newest block first: each block's accepted list as svc_getInferenceProofs reads it,
  // from the head (or the cursor's block) down, at most PROOF_SCAN_BLOCKS blocks a page; ?miner= keeps one miner's.
  listComputeProofs: ({ query }, services) => {
    const compute = services.node.queries.compute;
    const miner = query.miner === undefined ? undefined : lower(query.miner);
    const limit = limitOf(query);
    const cursor = decodeCursor(query.cursor as string | undefined);
    if (cursor && (cursor.after.length !== 24 || cursor.direction !== 'older')) throw new BadRequestError('cursor is not valid: use `next` from a previous page');
    let block = cursor ? readBe(Buffer.from(cursor.after, 'hex').subarray(0, 8)) : services.node.chain.head().number;
    // Proofs of the cursor's block left to show: those before the last one shown, in accepted order.
    let before = cursor ? readBe(Buffer.from(cursor.after, 'hex').subarray(8)) : Number.MAX_SAFE_INTEGER;
    const items: ComputeProof[] = [];
    let last: { block: number; index: number } | undefined;
    const lowest = Math.max(0, block - PROOF_SCAN_BLOCKS + 1);
    for (; block >= lowest && items.length < limit; block--, before = Number.MAX_SAFE_INTEGER) {
      const { accepted } = compute.blockActivity(block);
      for (let i = Math.min(accepted.length, before) - 1; i >= 0 && items.length < limit; i--) {
        const p = compute.proof(accepted[i]!);
        last = { block, index: i };
        if (!p || (miner !== undefined && p.miner !== miner)) continue;
        items.push(explorerProofView(p));
      }
    }
    // Stopped with a full page, or at the scan bound above block 0: there may be more below.
    const more = items.length === limit ? last !== undefined && (last.index > 0 || last.block > 0) : block >= 0;
    const from = items.length === limit ? last! : { block: block + 1, index: 0 };
    return {
      items,
      next: more ? encodeCursor({ after: Buffer.concat([be(from.block, 8), be(from.index, 4)]).toString('hex'), direction: 'older' }) : null,
      prev: null,
    };
  },

  getComputeStats: (_input, services) => inExplorerStyle<ComputeStats>(computeStats(services.node, EXPLORER_STYLE)),

  getComputeMiner: ({ params }, services) => {
    const m = services.node.queries.compute.miner(lower(params.address));
    if (!m) throw new NotFoundError(`miner ${params.address as string} not found`);
    return explorerMinerView(services, m);
  },

  getComputeTask: ({ params }, services) => {
    const t = services.node.queries.compute.task(lower(params.id));
    if (!t) throw new NotFoundError(`task ${params.id as string} not found`);
    return inExplorerStyle<ComputeTask>(services.node.queries.compute.taskView(t, EXPLORER_STYLE));
  },

  getComputeProof: ({ params }, services) => {
    const p = services.node.queries.compute.proof(lower(params.id));
    if (!p) throw new NotFoundError(`proof ${params.id as string} not found`);
    return explorerProofView(p);
  },

  getComputeBlockProofs: ({ params }, services) => {
    const n = params.number as number;
    const head = services.node.chain.head().number;
    if (n > head) throw new NotFoundError(`block ${n} not found (the head is ${head})`);
    const { accepted, decided } = services.node.queries.compute.blockProofs(n);
    return { blockNumber: n, accepted: accepted.map(explorerProofView), spotChecksDecided: decided.map(explorerProofView) };
  },
};

export const computeRoutes = routeModule(computeRouteDefs, computeHandlers);
