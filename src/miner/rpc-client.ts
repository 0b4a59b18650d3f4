// A small JSON-RPC 2.0 client over HTTP POST for the validator's svc_* inference methods.
// Two kinds of failure: the validator could not be reached or answered with a server failure
// (ValidatorUnreachableError: fetch error, timeout, HTTP 5xx, a body that is not JSON-RPC), which
// the miner retries with backoff; and a JSON-RPC error object (RpcError), which is an answer.
import type { GpuTierName, Hex, InferenceProofJson, MinerRegistrationJson, TaskJson } from '../modules/compute/wire.js';
import { SvcError } from '../errors.js';

/** The validator did not answer (network error, timeout, 5xx, or a malformed answer). */
export class ValidatorUnreachableError extends SvcError {
  override name = 'ValidatorUnreachableError';
  override readonly code = 'VALIDATOR_UNREACHABLE';
}

/** A JSON-RPC error object returned by the validator. */
export class RpcError extends SvcError {
  override name = 'RpcError';
  constructor(readonly method: string, override readonly code: number, message: string, readonly data?: unknown) {
    super(message);
  }

  /** `data.reason` of a -32003 rejection (BAD_SIGNATURE, NOT_ASSIGNED, ...), when present. */
  get reason(): string | undefined {
    const d = this.data as { reason?: unknown } | undefined;
    return d && typeof d === 'object' && typeof d.reason === 'string' ? d.reason : undefined;
  }
}

/** JSON-RPC code of a rejected proof or registration. */
export const REJECTED = -32003;

export type MinerStatus = 'unregistered' | 'active' | 'jailed' | 'inactive';

/** svc_getInferenceTasks' result. */
export interface InferenceTasks {
  validator: Hex;
  chainId: number;
  blockNumber: number;
  epoch: number;
  nextEpochBlock: number;
  miner: { status: MinerStatus; jailedUntil: number; tier?: GpuTierName; models?: string[] };
  tasks: TaskJson[];
}

/** svc_registerMiner's result. */
export interface RegistrationResult {
  wallet: Hex;
  public_key: Hex;
  status: string;
  appliesAtBlock: number;
}

/** svc_submitInferenceProof's result. */
export interface ProofSubmission {
  proof_id: Hex;
  status: string;
  flops: string;
}

/** svc_getInferenceMiner's result (the fields the miner uses). */
export interface InferenceMinerInfo {
  wallet: Hex;
  registered: boolean;
  status: string;
  tasksCompleted: string;
  proofsAccepted: string;
  rewards: Hex;
  [field: string]: unknown;
}

/** A model of the chain's registry, as svc_getApprovedModels gives it (docs/compute.md). */
export interface ApprovedModelJson {
  id: string;
  tier: GpuTierName;
  dims: number;
  status: 'approved' | 'retiring' | 'retired';
  refusedFromBlock: number | null;
  approvedAtBlock: number;
  approvedBy: number | null;
  /** The files governance pinned (SHA-256 lower-case hex); null where the inference registry pins them. */
  files: { name: string; sha256: string; size: number }[] | null;
  pinnedBy: 'governance' | 'registry';
}

/** JSON-RPC's code for a method the node does not serve (a node older than svc_getApprovedModels). */
export const METHOD_NOT_FOUND = -32601;

/** The validator methods the miner calls (an interface, so tests may stand in for the network). */
export interface MinerRpc {
  chainId(signal?: AbortSignal): Promise<number>;
  registerMiner(reg: MinerRegistrationJson, signal?: AbortSignal): Promise<RegistrationResult>;
  getInferenceTasks(wallet: Hex, signal?: AbortSignal): Promise<InferenceTasks>;
  submitInferenceProof(proof: InferenceProofJson, signal?: AbortSignal): Promise<ProofSubmission>;
  getInferenceMiner(wallet: Hex, signal?: AbortSignal): Promise<InferenceMinerInfo>;
  getApprovedModels(signal?: AbortSignal): Promise<ApprovedModelJson[]>;
}

interface JsonRpcAnswer {
  jsonrpc?: string;
  id?: unknown;
  result?: unknown;
  error?: { code?: unknown; message?: unknown; data?: unknown };
}

export class RpcClient implements MinerRpc {
  private nextId = 1;

  constructor(readonly url: string, readonly timeoutMs = 15_000) {
    try {
      const u = new URL(url);
      if (u.protocol !== 'http:' && u.protocol !== 'https:') throw new Error();
    } catch {
      throw new TypeError(`--validator-rpc must be an http(s) URL, got ${JSON.stringify(url)}`);
    }
  }

  /** Calls one method; its result, or RpcError / ValidatorUnreachableError. */
  async call<T>(method: string, params: unknown[] = [], signal?: AbortSignal): Promise<T> {
    const timeout = AbortSignal.timeout(this.timeoutMs);
    const abort = signal ? AbortSignal.any([signal, timeout]) : timeout;
    let status: number;
    let text: string;
    try {
      const res = await fetch(this.url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'user-agent': 'svc-miner' },
        body: JSON.stringify({ jsonrpc: '2.0', id: this.nextId++, method, params }),
        signal: abort,
      });
      status = res.status;
      text = await res.text();
    } catch (e) {
      if (signal?.aborted) throw signal.reason ?? e;
      if (timeout.aborted) throw new ValidatorUnreachableError(`${this.url} did not answer ${method} within ${this.timeoutMs} ms`);
      const cause = (e as { cause?: { code?: string; message?: string } }).cause;
      throw new ValidatorUnreachableError(`cannot reach ${this.url}: ${cause?.code ?? cause?.message ?? (e as Error).message}`, { cause: e });
    }
    // A JSON-RPC error object is an answer whatever the HTTP status; any other 5xx is a server failure.
    let body: JsonRpcAnswer | undefined;
    try {
      body = JSON.parse(text) as JsonRpcAnswer;
    } catch {
      body = undefined;
    }
    if (body === undefined || body === null || typeof body !== 'object') {
      if (status >= 500) throw new ValidatorUnreachableError(`${this.url} answered HTTP ${status}`);
      throw new ValidatorUnreachableError(`${this.url} answered ${method} with HTTP ${status} and no JSON-RPC body`);
    }
    if (body.error && typeof body.error === 'object') {
      const code = typeof body.error.code === 'number' ? body.error.code : -32603;
      const message = typeof body.error.message === 'string' ? body.error.message : 'error';
      throw new RpcError(method, code, message, body.error.data);
    }
    if (status >= 500) throw new ValidatorUnreachableError(`${this.url} answered HTTP ${status}`);
    if (!('result' in body)) {
      throw new ValidatorUnreachableError(`${this.url} answered ${method} with no result (HTTP ${status})`);
    }
    return body.result as T;
  }

  async chainId(signal?: AbortSignal): Promise<number> {
    const hex = await this.call<string>('eth_chainId', [], signal);
    const n = typeof hex === 'string' && /^0x[0-9a-fA-F]+$/.test(hex) ? Number.parseInt(hex, 16) : NaN;
    if (!Number.isSafeInteger(n)) throw new ValidatorUnreachableError(`eth_chainId answered ${JSON.stringify(hex)}, not a hex quantity`);
    return n;
  }

  registerMiner(reg: MinerRegistrationJson, signal?: AbortSignal): Promise<RegistrationResult> {
    return this.call('svc_registerMiner', [reg], signal);
  }

  getInferenceTasks(wallet: Hex, signal?: AbortSignal): Promise<InferenceTasks> {
    return this.call('svc_getInferenceTasks', [{ miner: wallet }], signal);
  }

  submitInferenceProof(proof: InferenceProofJson, signal?: AbortSignal): Promise<ProofSubmission> {
    return this.call('svc_submitInferenceProof', [proof], signal);
  }

  getInferenceMiner(wallet: Hex, signal?: AbortSignal): Promise<InferenceMinerInfo> {
    return this.call('svc_getInferenceMiner', [wallet], signal);
  }

  getApprovedModels(signal?: AbortSignal): Promise<ApprovedModelJson[]> {
    return this.call('svc_getApprovedModels', [], signal);
  }
}
