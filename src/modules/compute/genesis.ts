// The compute module's part of the genesis: its global record before any block (the approved
// models of the parameters and their registry, nothing counted), which a chain without compute
// records starts from.
import type { ComputeParams } from '../../params.js';
import { emptyCounters, type ApprovedModelRecord, type ComputeGlobal } from './types.js';

/** The module's global record at genesis: the approved models of the parameters, nothing counted yet. */
export function genesisGlobal(params: ComputeParams): ComputeGlobal {
  return {
    approvedModels: params.approvedModels.map((m) => m.id),
    counters: emptyCounters(),
    minerPool: 0n,
    lastBlockProofs: [],
    spotChecksPending: [],
    assignedEpoch: 0,
    recentHashes: [],
    seenShares: [],
    powWindow: [],
    models: {},
    penaltiesDue: [],
    registry: genesisRegistry(params),
  };
}

/** The registry of a genesis: its approved models, pinned by the inference registry. */
export function genesisRegistry(params: ComputeParams): Record<string, ApprovedModelRecord> {
  return Object.fromEntries(params.approvedModels.map((m) => [m.id, { id: m.id, tier: m.tier, dims: m.dims, approvedAtHeight: 0 }]));
}

/**
 * The module's approved models as the parameters a genesis starts from name them (Cosmos'
 * ExportGenesis): the models approved now, in the order they were approved, with their tier and output size.
 */
export function exportGenesis(registry: readonly ApprovedModelRecord[], approved: readonly string[]): Pick<ComputeParams, 'approvedModels'> {
  return {
    approvedModels: approved.map((id) => {
      const r = registry.find((m) => m.id === id);
      if (!r) throw new Error(`approved model ${id} is not in the registry`);
      return { id, tier: r.tier, dims: r.dims };
    }),
  };
}
