// svc_* methods of proof-of-contribution compute: miner registration, task polling and proof
// submission (what svc-miner calls), public inference tasks, and the views of tasks, proofs,
// miners and the whole module (svc_getInferenceStats). Shapes: docs/compute.md.
import { decodeFunctionData, type Hex as ViemHex } from 'viem';
import { checksumAddress } from '../../chain/address.js';
import { COMPUTE_ABI, proofView, publicTaskId, type ViewStyle } from '../../modules/compute/queries.js';
import { computeStats } from '../../compute/views.js';
import type { Address, MinerRecord, ProofRecord, TaskRecord } from '../../modules/compute/types.js';
import type { TaskJson } from '../../modules/compute/wire.js';
import { system } from '../../params.js';
import { ComputeInputError, ComputeRejectedError } from '../../compute/intake.js';
import { HeaderNotFoundError, InvalidArgumentError, InvalidParamsError, MethodNotSupportedError, NotFoundError, TransactionRejectedError } from '../errors.js';
import { toData, toQuantity } from '../hex.js';
import { method, required, type MethodTable, type RpcContext } from '../method.js';
import { InvalidValueError, parseAddress, parseBlockNumberOrTag, parseBytes, parseHash } from '../validate.js';
import { blockNumberOf } from '../block-tags.js';
import { submitError } from '../eth/transactions.js';

const COMPUTE = Buffer.from(system.computeAddress.slice(2), 'hex');
const anything = (v: unknown): unknown => v;
const addr = (b: Buffer): Address => `0x${b.toString('hex')}`;
/** JSON-RPC's way of writing the shared views' numbers: 0x quantities for amounts and heights. */
const RPC_STYLE: ViewStyle = { amount: toQuantity, height: toQuantity, counter: (n) => n.toString() };

function epochInfo(ctx: RpcContext) {
  const { head, epoch } = ctx.services.queries.compute.headEpoch();
  return { head, epoch, nextEpochBlock: ctx.services.queries.staking.epochStart(epoch + 1) };
}

function taskJson(t: TaskRecord): TaskJson {
  return { task_id: t.id, kind: t.kind, model_id: t.modelId, input: t.input, input_hash: t.inputHash };
}

/** A proof as svc_getInferenceProof and the svcInferenceProofs subscription show it. */
export const rpcProofView = (p: ProofRecord) => proofView(p, RPC_STYLE);

function rpcMinerView(ctx: RpcContext, m: MinerRecord) {
  return { ...ctx.services.queries.compute.minerView(m, RPC_STYLE), registered: true, openTasks: ctx.services.queries.compute.openTasksOf(m.wallet).length };
}

function inferenceNode(ctx: RpcContext, name: string): void {
  if (ctx.services.compute.mode !== 'inference') {
    throw new MethodNotSupportedError(name, `this node runs compute mode ${ctx.services.compute.mode}; use a validator in inference mode`);
  }
}

/** The intake's refusals as JSON-RPC errors: -32003 with the reason code as data, -32602 for malformed input. */
async function intakeAnswer<T>(answer: Promise<T>): Promise<T> {
  try {
    return await answer;
  } catch (err) {
    if (err instanceof ComputeRejectedError) throw new TransactionRejectedError(err.message, { reason: err.reason }, { cause: err });
    if (err instanceof ComputeInputError) throw new InvalidParamsError(err.message, { cause: err });
    throw err;
  }
}

export const computeMethods: MethodTable = {
  svc_registerMiner: method([required(anything)], async (ctx, [reg]) => intakeAnswer(ctx.services.compute.intake.register(reg))),

  svc_submitInferenceProof: method([required(anything)], async (ctx, [proof]) => {
    inferenceNode(ctx, 'svc_submitInferenceProof');
    return intakeAnswer(ctx.services.compute.intake.submitProof(proof));
  }),

  svc_getInferenceTasks: method([required(anything)], (ctx, [query]) => {
    inferenceNode(ctx, 'svc_getInferenceTasks');
    const q = query as { miner?: unknown };
    if (q === null || typeof q !== 'object' || typeof q.miner !== 'string') throw new InvalidArgumentError(0, 'expected { miner: <wallet address> }');
    let wallet: Address;
    try {
      wallet = addr(parseAddress(q.miner));
    } catch (err) {
      if (err instanceof InvalidValueError) throw new InvalidArgumentError(0, `miner: ${err.reason}`);
      throw err;
    }
    const { head, epoch, nextEpochBlock } = epochInfo(ctx);
    const { compute, intake } = { compute: ctx.services.queries.compute, intake: ctx.services.compute.intake };
    const m = compute.miner(wallet);
    const status = m ? compute.minerStatus(m, head.timestamp, epoch) : 'unregistered';
    return {
      validator: intake.validator,
      chainId: ctx.services.config.chainId,
      blockNumber: head.number,
      epoch,
      nextEpochBlock,
      miner: { status, jailedUntil: m?.jailedUntil ?? 0, tier: m?.tier ?? null, models: m?.models ?? [] },
      // A jailed miner gets no task; tasks past their deadline or already proven are not listed.
      tasks:
        status === 'jailed' || status === 'unregistered'
          ? []
          : compute
              .openTasksOf(wallet)
              .filter((t) => !compute.isProofQueued(t.id) && (t.deadlineEpoch ?? -1) >= epoch)
              .map(taskJson),
    };
  }),

  svc_getInferenceTask: method([required(parseHash)], (ctx, [id]) => {
    const t = ctx.services.queries.compute.task(toData(id) as `0x${string}`);
    if (!t) throw new NotFoundError(`task ${toData(id)} not found`);
    return ctx.services.queries.compute.taskView(t, RPC_STYLE);
  }),

  svc_getInferenceProof: method([required(parseHash)], (ctx, [id]) => {
    const p = ctx.services.queries.compute.proof(toData(id) as `0x${string}`);
    if (!p) throw new NotFoundError(`proof ${toData(id)} not found`);
    return rpcProofView(p);
  }),

  svc_getInferenceProofs: method([required(parseBlockNumberOrTag)], (ctx, [block]) => {
    const n = blockNumberOf(ctx.services.chain, block);
    if (n === null) throw new HeaderNotFoundError();
    const { accepted, decided } = ctx.services.queries.compute.blockProofs(n);
    return { blockNumber: toQuantity(n), accepted: accepted.map(rpcProofView), spotChecksDecided: decided.map(rpcProofView) };
  }),

  svc_getInferenceMiner: method([required(parseAddress)], (ctx, [wallet]) => {
    const m = ctx.services.queries.compute.miner(addr(wallet));
    if (!m) {
      return { wallet: checksumAddress(wallet), registered: false, status: 'unregistered', tasksCompleted: '0', proofsAccepted: '0', rewards: '0x0' };
    }
    return rpcMinerView(ctx, m);
  }),

  svc_getInferenceMiners: method([], (ctx) => ctx.services.queries.compute.minerList().map((m) => rpcMinerView(ctx, m))),

  svc_submitInferenceTask: method([required(parseBytes)], async (ctx, [raw]) => {
    if (raw.length === 0) throw new InvalidArgumentError(0, 'empty transaction');
    let tx;
    try {
      tx = ctx.services.chain.decodeTransaction(raw);
    } catch (err) {
      throw new InvalidArgumentError(0, (err as Error).message);
    }
    if (tx.to === null || !tx.to.equals(COMPUTE)) throw new InvalidArgumentError(0, `the transaction must call submitTask on ${system.computeAddress}`);
    try {
      const data = toData(tx.data) as ViemHex;
      const d = decodeFunctionData({ abi: COMPUTE_ABI, data });
      if (d.functionName !== 'submitTask') throw new Error('not submitTask');
    } catch {
      throw new InvalidArgumentError(0, 'the transaction data is not a submitTask(string modelId, string input) call');
    }
    try {
      const hash = await ctx.services.mempool.submit(raw);
      return { transactionHash: toData(hash), taskId: publicTaskId(hash) };
    } catch (err) {
      throw submitError(err);
    }
  }),

  svc_getInferenceStats: method([], (ctx) => computeStats(ctx.services, RPC_STYLE)),

  svc_getApprovedModels: method([], (ctx) => {
    return ctx.services.queries.compute.approvedModelViews();
  }),
};
