// What source verification keeps, and where: one repository per entity in the "explorer" column
// family, beside the indexer's (whose contracts live under "c/"; these prefixes differ from it in
// their second byte, so no scan of one walks into the other).
import type { Chain } from '../../native/index.js';
import { be, Repository } from '../store.js';
import type { Hex } from '../indexer/records.js';

/** A Solidity standard JSON input, as solc takes it (only inline `content` sources). */
export interface StandardJsonInput {
  language: 'Solidity';
  sources: Record<string, { content: string }>;
  settings?: Record<string, unknown>;
}

/** How the compiled runtime code matched the code on chain. */
export type MatchKind =
  /** Byte for byte, metadata hash included (immutables and library addresses masked). */
  | 'full'
  /** Equal but for the CBOR metadata tail: same code, sources differing in comments, names or whitespace. */
  | 'partial';

/** A contract whose sources compile to its code on chain. */
export interface VerifiedContract {
  address: Hex;
  /** "path:Name" as submitted. */
  sourcePath: string;
  contractName: string;
  /** solc's long version, e.g. 0.8.30+commit.73712a01. */
  compilerVersion: string;
  language: 'Solidity';
  optimizer: { enabled: boolean; runs: number };
  /** null: the compiler's default. */
  evmVersion: string | null;
  viaIR: boolean;
  /** SPDX identifier of the contract's source file, when it declares one. */
  license: string | null;
  /** The standard JSON input that was verified. */
  input: StandardJsonInput;
  abi: unknown[];
  /** ABI-encoded constructor arguments (hex, no 0x): from the creation transaction where the index knows it. */
  constructorArguments: string;
  match: MatchKind;
  guid: string;
  /** Unix milliseconds. */
  verifiedAt: number;
}

/** One line of the list of verified contracts. */
export interface VerifiedListing {
  address: Hex;
  contractName: string;
  compilerVersion: string;
  optimizer: { enabled: boolean; runs: number };
  match: MatchKind;
  verifiedAt: number;
}

export type VerificationStatus = 'pending' | 'pass' | 'fail';

/** One submitted verification, looked up by its GUID. */
export interface VerificationRecord {
  guid: string;
  address: Hex;
  /** "path:Name" as submitted. */
  contractName: string;
  compilerVersion: string;
  status: VerificationStatus;
  /** Why it failed (null unless `fail`). */
  reason: string | null;
  match: MatchKind | null;
  /** Unix milliseconds. */
  submittedAt: number;
  completedAt: number | null;
}

/** Every repository of source verification. */
export class ContractRepositories {
  /** cv/ addr20 -> the verified contract. */
  readonly verified: Repository<VerifiedContract>;
  /** cl/ be64(verifiedAt ms) ++ addr20 -> its listing line: a reverse scan lists the newest first. */
  readonly listing: Repository<VerifiedListing>;
  /** cj/ guid -> the verification job. */
  readonly verifications: Repository<VerificationRecord>;

  constructor(chain: Chain) {
    const repo = <T>(prefix: string) => new Repository<T>(chain, 'explorer', Buffer.from(prefix, 'utf8'));
    this.verified = repo('cv/');
    this.listing = repo('cl/');
    this.verifications = repo('cj/');
  }
}

export const listingKey = (verifiedAt: number, address: Hex): Buffer => Buffer.concat([be(verifiedAt, 8), Buffer.from(address.slice(2), 'hex')]);
export const guidKey = (guid: string): Buffer => Buffer.from(guid, 'utf8');
