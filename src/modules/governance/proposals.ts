// Proposal kinds (Cosmos SDK x/gov's router): each kind registers a handler with the ABI function
// that submits it, `validate` (the content from that call's arguments, checked at submission) and
// `execute` (what a passed proposal does when its tally ends). Governance's messages and hooks ask
// the router; a new kind adds its content to ProposalContent (types.ts) and registers a handler.
import type { Hex } from 'viem';
import type { GovernanceParams } from '../../params.js';
import type { BlockInfo } from '../kernel/module.js';
import type { ModelsKeeper } from './keepers.js';
import type { LiveParams } from './live-params.js';
import { spendRecipientProblem } from './treasury.js';
import type { Address, GovernanceGlobal, ModelApproval, ModelTierName, ParamChange, ProposalContent } from './types.js';

export type ProposalKindName = ProposalContent['kind'];
export type ContentOf<K extends ProposalKindName> = Extract<ProposalContent, { kind: K }>;

/** What a kind's handler reads and changes: the live parameters, governance's global record (changed in place), the model registry. */
export interface ProposalEnv {
  readonly live: LiveParams;
  /** Governance's own rules, as live now. */
  readonly rules: GovernanceParams;
  readonly global: GovernanceGlobal;
  models(): ModelsKeeper;
}

/** What carrying out a passed proposal did: its detail, or why the state no longer allowed it. */
export interface ProposalExecution {
  failed: string | null;
  detail: string;
  /** The epoch from which its change applies (parameter changes). */
  appliesAtEpoch?: number;
}

export interface ProposalHandler<K extends ProposalKindName = ProposalKindName> {
  readonly kind: K;
  /** The ABI function that submits it: its arguments are the title, the description, then the content's. */
  readonly submitFunction: string;
  /** The content from the content's arguments, checked at submission; or why the proposal is refused. */
  validate(args: readonly unknown[], env: ProposalEnv): ContentOf<K> | { refused: string };
  /** A passed proposal carried out at the end of `block`. */
  execute(content: ContentOf<K>, proposalId: number, block: BlockInfo, env: ProposalEnv): ProposalExecution;
}

/** The proposal kinds governance takes, by kind and by the ABI function that submits each. */
export class ProposalRouter {
  private readonly byKind = new Map<string, ProposalHandler>();
  private readonly byFunction = new Map<string, ProposalHandler>();

  register<K extends ProposalKindName>(handler: ProposalHandler<K>): this {
    if (this.byKind.has(handler.kind)) throw new Error(`proposal kind ${handler.kind} is registered twice`);
    if (this.byFunction.has(handler.submitFunction)) throw new Error(`${handler.submitFunction} submits two proposal kinds`);
    this.byKind.set(handler.kind, handler as unknown as ProposalHandler);
    this.byFunction.set(handler.submitFunction, handler as unknown as ProposalHandler);
    return this;
  }

  /** The kind `functionName` submits, if it submits one. */
  forFunction(functionName: string): ProposalHandler | undefined {
    return this.byFunction.get(functionName);
  }

  /** The handler of a recorded proposal's kind. */
  forKind(kind: string): ProposalHandler {
    const h = this.byKind.get(kind);
    if (!h) throw new Error(`governance: no handler for proposal kind ${kind}`);
    return h;
  }

  /** The kinds registered, in registration order. */
  kinds(): string[] {
    return [...this.byKind.keys()];
  }

  /** The ABI functions that submit a registered kind, in registration order. */
  submitFunctions(): string[] {
    return [...this.byFunction.keys()];
  }
}

const MODEL_ID = /^[a-z0-9][a-z0-9-]{0,62}@v[0-9]{1,4}\.[0-9]{1,4}$/;
const TIERS: readonly ModelTierName[] = ['Hot', 'Warm', 'Cold'];
/** Largest model file a proposal may pin (16 GiB). */
const MAX_FILE_BYTES = 16 * 1024 ** 3;

/** Parameter changes: checked against their ranges and the changes already waiting; applied at the next epoch's first block (hooks.ts). */
export const parameterChange: ProposalHandler<'parameter-change'> = {
  kind: 'parameter-change',
  submitFunction: 'submitParameterChange',
  validate([names, values], env) {
    const n = names as readonly string[];
    const v = values as readonly bigint[];
    if (n.length !== v.length) return { refused: `${n.length} names and ${v.length} values` };
    if (n.length === 0) return { refused: 'a parameter change needs at least one change' };
    if (n.length > env.rules.maxChangesPerProposal) return { refused: `${n.length} changes, limit ${env.rules.maxChangesPerProposal}` };
    const changes: ParamChange[] = n.map((name, i) => ({ name, value: v[i]! }));
    const problem = env.live.check(changes, env.global.pendingChanges.flatMap((x) => x.changes));
    if (problem !== null) return { refused: problem };
    return { kind: 'parameter-change', changes };
  },
  execute(c, proposalId, block, env) {
    const g = env.global;
    const failed = env.live.check(c.changes, g.pendingChanges.flatMap((x) => x.changes));
    const appliesAtEpoch = block.epoch + 1;
    if (failed === null) g.pendingChanges.push({ proposalId, appliesAtEpoch, changes: c.changes });
    return { failed, detail: `${c.changes.map((x) => `${x.name} = ${x.value}`).join(', ')} from epoch ${appliesAtEpoch}`, appliesAtEpoch };
  },
};

/** A model approved in the compute module's registry. */
export const modelApproval: ProposalHandler<'model-approval'> = {
  kind: 'model-approval',
  submitFunction: 'submitModelApproval',
  validate(args) {
    const [modelId, tier, dims, weightsSha256, weightsSize, tokenizerSha256, tokenizerSize] = args as [string, string, number, Hex, bigint, Hex, bigint];
    if (!MODEL_ID.test(modelId)) return { refused: `model id ${JSON.stringify(modelId)} is not <name>@v<major>.<minor> (lower-case name)` };
    if (!TIERS.includes(tier as ModelTierName)) return { refused: `tier must be Hot, Warm or Cold, got ${JSON.stringify(tier)}` };
    if (dims < 1 || dims > 4096) return { refused: `dims must lie in [1, 4096], got ${dims}` };
    const zero = /^0x0{64}$/;
    if (zero.test(weightsSha256) || zero.test(tokenizerSha256)) return { refused: 'a file digest of zero pins nothing' };
    for (const [what, size] of [['weights', weightsSize], ['tokenizer', tokenizerSize]] as const) {
      if (size < 1n || size > BigInt(MAX_FILE_BYTES)) return { refused: `${what} size must lie in [1, ${MAX_FILE_BYTES}] bytes, got ${size}` };
    }
    const model: ModelApproval = {
      modelId,
      tier: tier as ModelTierName,
      dims,
      weights: { sha256: weightsSha256.slice(2).toLowerCase(), size: Number(weightsSize) },
      tokenizer: { sha256: tokenizerSha256.slice(2).toLowerCase(), size: Number(tokenizerSize) },
    };
    return { kind: 'model-approval', model };
  },
  execute(c, proposalId, block, env) {
    env.models().approveModel(c.model, block.height, proposalId);
    return { failed: null, detail: `${c.model.modelId} approved (tier ${c.model.tier}, ${c.model.dims} dims)` };
  },
};

/** A model retired from the compute module's registry: its proofs are refused after a grace period. */
export const modelRetirement: ProposalHandler<'model-retirement'> = {
  kind: 'model-retirement',
  submitFunction: 'submitModelRetirement',
  validate([modelId], env) {
    const problem = env.models().retirementProblem(modelId as string);
    if (problem !== null) return { refused: problem };
    return { kind: 'model-retirement', modelId: modelId as string };
  },
  execute(c, proposalId, block, env) {
    const models = env.models();
    const failed = models.retirementProblem(c.modelId);
    const from = block.height + env.rules.modelRetirementGraceBlocks + 1;
    if (failed === null) models.retireModel(c.modelId, from, proposalId);
    return { failed, detail: `${c.modelId} retired: proofs refused from block ${from}` };
  },
};

/** A treasury spend: paid from the treasury at once or in parts over epochs (hooks.ts pays the parts due). */
export const treasurySpend: ProposalHandler<'treasury-spend'> = {
  kind: 'treasury-spend',
  submitFunction: 'submitTreasurySpend',
  validate(args, env) {
    const [recipient, amount, vestingEpochs] = args as [string, bigint, number];
    if (amount === 0n) return { refused: 'a spend of zero' };
    if (vestingEpochs > env.rules.maxVestingEpochs) return { refused: `vesting over ${vestingEpochs} epochs, limit ${env.rules.maxVestingEpochs}` };
    const to = recipient.toLowerCase() as Address;
    const refused = spendRecipientProblem(to);
    if (refused !== null) return { refused };
    return { kind: 'treasury-spend', spend: { recipient: to, amount, vestingEpochs } };
  },
  execute(c, proposalId, block, env) {
    const s = c.spend;
    const parts = Math.max(1, s.vestingEpochs);
    const failed = spendRecipientProblem(s.recipient);
    if (failed === null) env.global.pendingSpends.push({ proposalId, recipient: s.recipient, amount: s.amount, paid: 0n, parts, partsPaid: 0, nextEpoch: s.vestingEpochs === 0 ? block.epoch : block.epoch + 1 });
    const detail = s.vestingEpochs === 0 ? `${s.amount} wei to ${s.recipient}` : `${s.amount} wei to ${s.recipient} in ${parts} parts, one per epoch from epoch ${block.epoch + 1}`;
    return { failed, detail };
  },
};

/** A text proposal: signalling only. */
export const textProposal: ProposalHandler<'text'> = {
  kind: 'text',
  submitFunction: 'submitText',
  validate() {
    return { kind: 'text' };
  },
  execute() {
    return { failed: null, detail: 'signalling only' };
  },
};

/** The router with every kind governance takes today. */
export function governanceProposals(): ProposalRouter {
  return new ProposalRouter().register(parameterChange).register(modelApproval).register(modelRetirement).register(treasurySpend).register(textProposal);
}
