// Implementations of the Contracts routes (definitions in routes/contracts.ts).
import { routeModule, type Handler, type Handlers } from '../definition.js';
import { decodeFunctionResult, encodeFunctionData, type Abi, type AbiFunction } from 'viem';
import { revertReason } from '../../chain/revert-reason.js';
import { BadRequestError, NotFoundError } from '../envelope.js';
import { clip } from '../validate.js';
import { addressKey, type Hex } from '../indexer/records.js';
import { decodeCursor, keysetPage, PAGE } from '../pagination.js';
import type { VerificationRecord, VerifiedContract, VerifiedListing } from '../contracts/records.js';
import { parseVerificationRequest } from '../contracts/request.js';
import { NoContractCodeError, verifierFor } from '../contracts/verifier.js';
import { contractsDefinitions, type AbiEntry } from '../routes/contracts.js';

const seconds = (ms: number): number => Math.floor(ms / 1000);

/** A line of the verified list as the API shows it (times in seconds). */
function listingView(l: VerifiedListing) {
  return { address: l.address, contractName: l.contractName, compilerVersion: l.compilerVersion, optimizer: l.optimizer, match: l.match, verifiedAt: seconds(l.verifiedAt) };
}

/** A verification as the API shows it (times in seconds). */
function verificationView(r: VerificationRecord) {
  return {
    guid: r.guid,
    address: r.address,
    contractName: r.contractName,
    compilerVersion: r.compilerVersion,
    status: r.status,
    reason: r.reason,
    match: r.match,
    submittedAt: seconds(r.submittedAt),
    completedAt: r.completedAt === null ? null : seconds(r.completedAt),
  };
}

/** The verified sources, settings and constructor arguments of a contract. */
function sourceView(c: VerifiedContract) {
  return {
    address: c.address,
    contractName: c.contractName,
    sourcePath: c.sourcePath,
    compilerVersion: c.compilerVersion,
    language: c.language,
    sources: c.input.sources,
    settings: c.input.settings ?? {},
    constructorArguments: `0x${c.constructorArguments}`,
    license: c.license,
    match: c.match,
  };
}

const lowerAddress = (v: unknown): Hex => (v as string).toLowerCase() as Hex;

/** The verified record of `address`, or 404 (no code, or not verified). */
function verifiedOr404(input: Parameters<Handler>[0], services: Parameters<Handler>[1]): VerifiedContract {
  const address = lowerAddress(input.params.address);
  const verifier = verifierFor(services);
  const verified = verifier.verified(address);
  if (verified) return verified;
  if (verifier.code(address).length === 0) throw new NoContractCodeError(address);
  throw new NotFoundError(`contract ${address} is not verified`);
}

export const contractsHandlers: Handlers<typeof contractsDefinitions> = {
  listVerifiedContracts: ({ query }, services) => {
    const { listing } = verifierFor(services).repos;
    return keysetPage(
      decodeCursor(query.cursor as string | undefined),
      (query.limit as number | undefined) ?? PAGE.defaultLimit,
      (from, limit, older) => listing.scan(Buffer.alloc(0), from, limit, older),
      (e) => listingView(e.value),
    );
  },

  getContract: ({ params }, services) => {
    const address = lowerAddress(params.address);
    const verifier = verifierFor(services);
    const code = verifier.code(address);
    if (code.length === 0) throw new NoContractCodeError(address);
    const created = services.indexes.contracts.get(addressKey(address));
    const v = verifier.verified(address);
    return {
      address,
      codeSize: code.length,
      creator: created?.creator ?? null,
      txHash: created?.txHash ?? null,
      blockNumber: created?.blockNumber ?? null,
      timestamp: created?.timestamp ?? null,
      verified: v !== undefined,
      contractName: v?.contractName ?? null,
      compilerVersion: v?.compilerVersion ?? null,
      optimizer: v?.optimizer ?? null,
      evmVersion: v?.evmVersion ?? null,
      viaIR: v?.viaIR ?? null,
      license: v?.license ?? null,
      match: v?.match ?? null,
      verifiedAt: v ? seconds(v.verifiedAt) : null,
    };
  },

  getContractAbi: (input, services) => {
    const c = verifiedOr404(input, services);
    return { address: c.address, abi: c.abi as AbiEntry[] };
  },

  getContractSource: (input, services) => sourceView(verifiedOr404(input, services)),

  readContract: async (input, services) => {
    const c = verifiedOr404(input, services);
    const b = input.body as { method: string; args?: unknown[] };
    const fn = readFunction(c.abi as Abi, b.method);
    const args = b.args ?? [];
    if (args.length !== fn.inputs.length) throw new BadRequestError(`${signatureOf(fn)} takes ${fn.inputs.length} arguments, got ${args.length}`);
    let data: Hex;
    try {
      data = encodeFunctionData({ abi: [fn], functionName: fn.name, args: args.map((a, i) => argument(fn.inputs[i]!.type, a)) } as never);
    } catch (err) {
      throw new BadRequestError(`arguments of ${signatureOf(fn)}: ${clipMessage((err as Error).message.split('\n')[0] ?? '')}`);
    }
    const { chain } = services.node;
    const head = chain.head().number;
    const r = await chain.call({ to: addressKey(c.address as Hex), data: Buffer.from(data.slice(2), 'hex') }, head);
    const returnData = `0x${r.output.toString('hex')}` as Hex;
    if (r.status !== 'success') throw new BadRequestError(`${signatureOf(fn)} failed: ${r.status === 'revert' ? `execution reverted${reasonOf(r.output)}` : (r.error ?? 'execution halted')}`);
    const decoded = decodeFunctionResult({ abi: [fn], functionName: fn.name, data: returnData } as never) as unknown;
    const values = fn.outputs.length === 1 ? [decoded] : (decoded as unknown[]);
    return {
      method: signatureOf(fn),
      outputs: fn.outputs.map((o, i) => ({ name: o.name ?? '', type: o.type, value: jsonValue(values[i]) })),
      returnData,
    };
  },

  verifyContract: async ({ params, body }, services) => {
    const b = body as { input: unknown; compilerVersion: unknown; contractName: unknown; constructorArguments?: unknown };
    const req = parseVerificationRequest({ address: lowerAddress(params.address), ...b });
    const { done } = await verifierFor(services).submit(req);
    return verificationView(await done);
  },

  getVerification: ({ params }, services) => {
    const record = verifierFor(services).verification(params.guid as string);
    if (!record) throw new NotFoundError(`no verification ${params.guid as string}`);
    return verificationView(record);
  },
};

/** viem's refusal of an argument repeats the argument: at most its first 160 characters are answered. */
const clipMessage = (text: string): string => (text.length <= 160 ? text : `${text.slice(0, 160)}…`);

const signatureOf = (f: AbiFunction) => `${f.name}(${f.inputs.map((i) => i.type).join(',')})`;

/** The view or pure function `method` names (a name, or a signature when the name is overloaded). */
function readFunction(abi: Abi, method: string): AbiFunction {
  const fns = abi.filter((e): e is AbiFunction => e.type === 'function');
  const matches = method.includes('(') ? fns.filter((f) => signatureOf(f) === method.replace(/\s+/g, '')) : fns.filter((f) => f.name === method);
  if (matches.length === 0) throw new BadRequestError(`the contract's ABI has no function ${clip(method)}`);
  if (matches.length > 1) throw new BadRequestError(`${method} is overloaded: name it by its signature (${matches.map(signatureOf).join(', ')})`);
  const f = matches[0]!;
  if (f.stateMutability !== 'view' && f.stateMutability !== 'pure') throw new BadRequestError(`${signatureOf(f)} is ${f.stateMutability}: only view and pure functions are read`);
  return f;
}

/**
 * A JSON argument as the ABI type wants it: integers from decimal or 0x strings (or safe numbers),
 * the rest as given. An integer string with more digits than its width holds is refused by its
 * length before it is converted.
 */
function argument(type: string, value: unknown): unknown {
  const int = /^u?int(\d*)$/.exec(type);
  if (int) {
    if (typeof value === 'number' && Number.isSafeInteger(value)) return BigInt(value);
    if (typeof value === 'string') {
      const text = value.trim();
      const bits = Number(int[1] || 256);
      const digits = text.replace(/^-/, '');
      const max = /^0x/i.test(digits) ? 2 + bits / 4 : (1n << BigInt(bits)).toString().length;
      if (digits.length > max) throw new BadRequestError(`${type} argument: number > ${bits} bits`);
      // BigInt takes no sign before 0x: the sign is applied after.
      if (/^-?(0x[0-9a-fA-F]+|\d+)$/.test(text)) return text.startsWith('-') ? -BigInt(digits) : BigInt(digits);
    }
    throw new BadRequestError(`${type} argument ${clip(JSON.stringify(value) ?? String(value))}: give an integer as a decimal or 0x string`);
  }
  if (type.endsWith(']') && Array.isArray(value)) return value.map((v) => argument(type.slice(0, type.lastIndexOf('[')), v));
  return value;
}

/** A decoded value as JSON: integers as decimal strings, arrays and tuples element by element. */
function jsonValue(v: unknown): unknown {
  if (typeof v === 'bigint') return v.toString();
  if (Array.isArray(v)) return v.map(jsonValue);
  if (v !== null && typeof v === 'object') return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, jsonValue(x)]));
  return v;
}

function reasonOf(output: Buffer): string {
  const reason = revertReason(output);
  return reason ? `: ${reason}` : '';
}

export const contractsRoutes = routeModule(contractsDefinitions, contractsHandlers);
