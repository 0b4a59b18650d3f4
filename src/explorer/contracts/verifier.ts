// Source verification: compiles a standard JSON input with solc-js and accepts it when the runtime
// code equals the code on chain (immutables and library addresses masked; a differing metadata tail
// gives a partial match). Each submission is a job with a GUID, pending while it compiles, as on
// Etherscan; a verified contract stays verified (a second submission is a conflict).
import { randomBytes } from 'node:crypto';
import type { Logger } from 'pino';
import type { Chain } from '../../native/index.js';
import { contracts as params } from '../../params.js';
import { ConflictError, NotFoundError } from '../envelope.js';
import { addressKey, type ExplorerIndexes, type Hex } from '../indexer/records.js';
import type { ExplorerServices } from '../definition.js';
import { commit } from '../store.js';
import { compareRuntime, hasUnlinkedLibraries, type ImmutableReferences } from './bytecode.js';
import { CompileTimeoutError, SolcCompiler } from './compiler.js';
import {
  ContractRepositories,
  guidKey,
  listingKey,
  type StandardJsonInput,
  type VerificationRecord,
  type VerifiedContract,
} from './records.js';
import type { VerificationRequest } from './request.js';

/** The address holds no code (an account, or nothing deployed there). */
export class NoContractCodeError extends NotFoundError {
  override name = 'NoContractCodeError';
  constructor(readonly address: Hex) {
    super(`no contract code at ${address}`);
  }
}

export class AlreadyVerifiedError extends ConflictError {
  override name = 'AlreadyVerifiedError';
  constructor(readonly address: Hex) {
    super(`contract ${address} is already verified`);
  }
}

export class VerificationInProgressError extends ConflictError {
  override name = 'VerificationInProgressError';
  constructor(
    readonly address: Hex,
    readonly guid: string,
  ) {
    super(`a verification of ${address} is in progress (guid ${guid})`);
  }
}

interface SolcContractOutput {
  abi: unknown[];
  evm: {
    bytecode: { object: string };
    deployedBytecode: { object: string; immutableReferences?: ImmutableReferences };
  };
}

interface SolcOutput {
  errors?: { severity: string; formattedMessage?: string; message: string }[];
  contracts?: Record<string, Record<string, SolcContractOutput>>;
}

/** A verification outcome before it is stored. */
type Outcome = { ok: true; contract: VerifiedContract } | { ok: false; reason: string };

const GUID_ALPHABET = 'abcdefghijklmnopqrstuvwxyz0123456789';

function newGuid(): string {
  return [...randomBytes(params.guidLength)].map((b) => GUID_ALPHABET[b % GUID_ALPHABET.length]).join('');
}

/** The input as compiled: the submitted settings, with output only for the contract in question. */
function compilerInput(req: VerificationRequest): StandardJsonInput {
  const settings: Record<string, unknown> = { ...(req.input.settings ?? {}) };
  // Neither changes the code; the model checker could only make compiling slow.
  delete settings.modelChecker;
  settings.outputSelection = {
    [req.sourcePath]: { [req.contractName]: ['abi', 'evm.bytecode.object', 'evm.deployedBytecode.object', 'evm.deployedBytecode.immutableReferences'] },
  };
  return { language: 'Solidity', sources: req.input.sources, settings };
}

function spdxLicense(source: string | undefined): string | null {
  return /SPDX-License-Identifier:\s*([^\s*]+)/.exec(source ?? '')?.[1] ?? null;
}

/** Verifies contracts of one chain and keeps what it verified. */
export class ContractVerifier {
  readonly repos: ContractRepositories;
  private readonly compiler = new SolcCompiler();
  /** address -> guid of the verification running for it. */
  private readonly running = new Map<Hex, string>();

  constructor(
    private readonly chain: Chain,
    private readonly indexes: ExplorerIndexes,
    private readonly log: Logger,
  ) {
    this.repos = new ContractRepositories(chain);
  }

  /** The runtime code at `address` at the head (empty for accounts). */
  code(address: Hex): Buffer {
    return this.chain.getCode(addressKey(address), this.chain.head().number);
  }

  /** The verified record of `address`, if it is verified. */
  verified(address: Hex): VerifiedContract | undefined {
    return this.repos.verified.get(addressKey(address));
  }

  /** A verification by GUID; one left pending by an earlier run of the node reads as failed. */
  verification(guid: string): VerificationRecord | undefined {
    const record = this.repos.verifications.get(guidKey(guid));
    if (record?.status === 'pending' && this.running.get(record.address) !== guid) {
      return { ...record, status: 'fail', reason: 'the verification was interrupted (the node restarted): submit it again' };
    }
    return record;
  }

  /**
   * Checks the request, records a pending job and starts it. Throws NoContractCodeError,
   * AlreadyVerifiedError, VerificationInProgressError, UnknownCompilerVersionError.
   */
  async submit(req: VerificationRequest): Promise<{ record: VerificationRecord; done: Promise<VerificationRecord> }> {
    if (this.code(req.address).length === 0) throw new NoContractCodeError(req.address);
    if (this.verified(req.address)) throw new AlreadyVerifiedError(req.address);
    const busy = this.running.get(req.address);
    if (busy) throw new VerificationInProgressError(req.address, busy);
    const compilerVersion = await this.compiler.resolve(req.compilerVersion);
    // The check above awaited: another submission may have started meanwhile.
    const again = this.running.get(req.address);
    if (again) throw new VerificationInProgressError(req.address, again);

    const record: VerificationRecord = {
      guid: newGuid(),
      address: req.address,
      contractName: `${req.sourcePath}:${req.contractName}`,
      compilerVersion,
      status: 'pending',
      reason: null,
      match: null,
      submittedAt: Date.now(),
      completedAt: null,
    };
    this.repos.verifications.put(guidKey(record.guid), record);
    this.running.set(req.address, record.guid);
    const done = this.verify(req, record)
      .catch((err: unknown): Outcome => {
        if (err instanceof CompileTimeoutError) return { ok: false, reason: err.message };
        this.log.error({ err, address: req.address }, 'contract verification failed');
        return { ok: false, reason: 'internal error while verifying' };
      })
      .then((outcome) => this.finish(record, outcome))
      // Nobody may be waiting (Etherscan's flow polls instead): `done` never rejects.
      .catch((err: unknown): VerificationRecord => {
        this.log.error({ err, guid: record.guid }, 'could not store a verification outcome');
        return { ...record, status: 'fail', reason: 'internal error while storing the outcome', completedAt: Date.now() };
      })
      .finally(() => this.running.delete(req.address));
    return { record, done };
  }

  /** Stops the compiler worker (an idle one never keeps the process alive; a busy one does until it finishes). */
  close(): Promise<void> {
    return this.compiler.close();
  }

  private finish(record: VerificationRecord, outcome: Outcome): VerificationRecord {
    const completedAt = Date.now();
    if (!outcome.ok) {
      const failed: VerificationRecord = { ...record, status: 'fail', reason: outcome.reason, completedAt };
      this.repos.verifications.put(guidKey(record.guid), failed);
      return failed;
    }
    const c = outcome.contract;
    const passed: VerificationRecord = { ...record, status: 'pass', match: c.match, completedAt };
    const key = addressKey(c.address);
    commit(this.chain, 'explorer', [
      this.repos.verified.putWrite(key, c),
      this.repos.listing.putWrite(listingKey(c.verifiedAt, c.address), {
        address: c.address,
        contractName: c.contractName,
        compilerVersion: c.compilerVersion,
        optimizer: c.optimizer,
        match: c.match,
        verifiedAt: c.verifiedAt,
      }),
      this.repos.verifications.putWrite(guidKey(record.guid), passed),
    ]);
    return passed;
  }

  private async verify(req: VerificationRequest, record: VerificationRecord): Promise<Outcome> {
    const output = JSON.parse(await this.compiler.compile(JSON.stringify(compilerInput(req)))) as SolcOutput;
    const errors = (output.errors ?? []).filter((e) => e.severity === 'error');
    if (errors.length > 0) return { ok: false, reason: `compilation failed: ${(errors[0]!.formattedMessage ?? errors[0]!.message).trim()}` };
    const compiled = output.contracts?.[req.sourcePath]?.[req.contractName];
    if (!compiled) return { ok: false, reason: `${req.sourcePath} defines no contract ${req.contractName}` };
    const runtime = compiled.evm.deployedBytecode.object;
    if (runtime === '') return { ok: false, reason: `${req.contractName} has no runtime code (an abstract contract or an interface)` };
    if (hasUnlinkedLibraries(runtime)) return { ok: false, reason: `${req.contractName} uses libraries that are not linked: give their addresses in settings.libraries` };

    const match = compareRuntime(this.code(req.address), Buffer.from(runtime, 'hex'), compiled.evm.deployedBytecode.immutableReferences ?? {});
    if (!match) return { ok: false, reason: `the compiled runtime bytecode of ${req.contractName} does not match the code at ${req.address}` };
    const args = this.constructorArguments(req, compiled.evm.bytecode.object);
    if (!args.ok) return args;

    const settings = req.input.settings ?? {};
    const optimizer = (settings.optimizer ?? {}) as { enabled?: unknown; runs?: unknown };
    return {
      ok: true,
      contract: {
        address: req.address,
        sourcePath: req.sourcePath,
        contractName: req.contractName,
        compilerVersion: record.compilerVersion,
        language: 'Solidity',
        optimizer: { enabled: optimizer.enabled === true, runs: typeof optimizer.runs === 'number' ? optimizer.runs : 200 },
        evmVersion: typeof settings.evmVersion === 'string' ? settings.evmVersion : null,
        viaIR: settings.viaIR === true,
        license: spdxLicense(req.input.sources[req.sourcePath]?.content),
        input: req.input,
        abi: compiled.abi,
        constructorArguments: args.hex,
        match,
        guid: record.guid,
        verifiedAt: Date.now(),
      },
    };
  }

  /**
   * The constructor arguments: what follows the creation code in the creation transaction, when
   * the index knows that transaction; given ones must agree with it. Without it, the given ones.
   */
  private constructorArguments(req: VerificationRequest, creationCode: string): { ok: true; hex: string } | { ok: false; reason: string } {
    const given = req.constructorArguments;
    const created = this.indexes.contracts.get(addressKey(req.address));
    const tx = created ? this.chain.getTransactionByHash(Buffer.from(created.txHash.slice(2), 'hex')) : null;
    const input = typeof tx?.['input'] === 'string' && tx['to'] === null ? tx['input'].slice(2).toLowerCase() : null;
    if (!created || input === null || hasUnlinkedLibraries(creationCode)) return { ok: true, hex: given ?? '' };
    const code = creationCode.toLowerCase();
    const mismatch = { ok: false as const, reason: `the constructor arguments do not match those of the creation transaction ${created.txHash}` };
    if (input.startsWith(code)) {
      const derived = input.slice(code.length);
      return given === null || given === derived ? { ok: true, hex: derived } : mismatch;
    }
    // The creation code differs in its metadata (a partial match): the arguments end the input.
    if (given !== null) return input.endsWith(given) ? { ok: true, hex: given } : mismatch;
    return { ok: true, hex: input.length > code.length ? input.slice(code.length) : '' };
  }
}

const verifiers = new WeakMap<Chain, ContractVerifier>();

/** The verifier of the services' chain (one per chain, so that jobs in flight are seen by every request). */
export function verifierFor(services: ExplorerServices): ContractVerifier {
  const { chain } = services.node;
  let verifier = verifiers.get(chain);
  if (!verifier) {
    verifier = new ContractVerifier(chain, services.indexes, services.node.log.child({ module: 'contract-verifier' }));
    verifiers.set(chain, verifier);
  }
  return verifier;
}

/** Stops the compiler of the services' chain, if one was started (the explorer's shutdown). */
export async function closeVerifier(services: ExplorerServices): Promise<void> {
  const verifier = verifiers.get(services.node.chain);
  if (!verifier) return;
  verifiers.delete(services.node.chain);
  await verifier.close();
}
