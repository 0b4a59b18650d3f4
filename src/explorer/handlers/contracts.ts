// Implementations of the Contracts routes (definitions in routes/contracts.ts).
import type { Handler } from '../definition.js';
import { NotFoundError } from '../envelope.js';
import { addressKey, type Hex } from '../indexer/records.js';
import { decodeCursor, keysetPage, PAGE } from '../pagination.js';
import type { VerificationRecord, VerifiedContract, VerifiedListing } from '../contracts/records.js';
import { parseVerificationRequest } from '../contracts/request.js';
import { NoContractCodeError, verifierFor } from '../contracts/verifier.js';

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

export const contractsHandlers: Record<string, Handler> = {
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
    return { address: c.address, abi: c.abi };
  },

  getContractSource: (input, services) => sourceView(verifiedOr404(input, services)),

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
