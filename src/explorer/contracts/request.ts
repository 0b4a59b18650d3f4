// A verification request, from the explorer's own API or the Etherscan-compatible one, checked
// before any compiling: a Solidity standard JSON input with inline sources, the contract as
// "path:Name", a compiler version and, optionally, the ABI-encoded constructor arguments.
import { contracts as params } from '../../params.js';
import { BadRequestError } from '../envelope.js';
import { clip } from '../validate.js';
import type { Hex } from '../indexer/records.js';
import type { StandardJsonInput } from './records.js';

export interface VerificationRequest {
  address: Hex;
  input: StandardJsonInput;
  /** The source file that defines the contract (the part before the last ':'). */
  sourcePath: string;
  /** The contract's own name (the part after it). */
  contractName: string;
  compilerVersion: string;
  /** Hex without 0x; null when the client gave none (they are then read from the creation transaction). */
  constructorArguments: string | null;
}

const VERSION_PATTERN = /^v?\d+\.\d+\.\d+(\+commit\.[0-9a-f]{8})?$/;
const NAME_PATTERN = /^[A-Za-z_$][A-Za-z0-9_$]*$/;
const HEX_PATTERN = /^(0x)?([0-9a-fA-F]{2})*$/;

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** The standard JSON input, checked: Solidity, sources with inline content, settings an object. */
export function parseStandardInput(value: unknown): StandardJsonInput {
  if (!isObject(value)) throw new BadRequestError('the standard JSON input must be an object');
  if (value.language !== 'Solidity') throw new BadRequestError(`only Solidity standard JSON input is supported (language: ${clip(JSON.stringify(value.language) ?? String(value.language))})`);
  const sources = value.sources;
  if (!isObject(sources) || Object.keys(sources).length === 0) throw new BadRequestError('the standard JSON input has no sources');
  if (Object.keys(sources).length > params.maxSources) throw new BadRequestError(`the standard JSON input has more than ${params.maxSources} sources`);
  for (const [path, source] of Object.entries(sources)) {
    if (!isObject(source) || typeof source.content !== 'string') throw new BadRequestError(`source "${clip(path)}" has no inline content (urls are not fetched)`);
  }
  if (value.settings !== undefined && !isObject(value.settings)) throw new BadRequestError('settings of the standard JSON input must be an object');
  return value as unknown as StandardJsonInput;
}

/** The parts of a "path:Name" contract name. */
export function parseContractName(value: unknown, input: StandardJsonInput): { sourcePath: string; contractName: string } {
  if (typeof value !== 'string' || !value.includes(':')) throw new BadRequestError('contractName must be "path:Name", e.g. contracts/Token.sol:Token');
  const cut = value.lastIndexOf(':');
  const sourcePath = value.slice(0, cut);
  const contractName = value.slice(cut + 1);
  if (!NAME_PATTERN.test(contractName)) throw new BadRequestError(`contractName "${clip(value)}" does not end in a contract name`);
  if (!(sourcePath in input.sources)) throw new BadRequestError(`source "${clip(sourcePath)}" of contractName is not among the sources`);
  return { sourcePath, contractName };
}

/** A solc version as written by clients (v0.8.30+commit.73712a01 or 0.8.30). */
export function parseCompilerVersion(value: unknown): string {
  if (typeof value !== 'string' || !VERSION_PATTERN.test(value.trim())) {
    throw new BadRequestError('compilerVersion must be a solc version such as v0.8.30+commit.73712a01');
  }
  return value.trim();
}

/** Constructor arguments as hex without 0x, lower case; null when absent or empty. */
export function parseConstructorArguments(value: unknown): string | null {
  if (value === undefined || value === null || value === '') return null;
  if (typeof value !== 'string' || !HEX_PATTERN.test(value)) throw new BadRequestError('constructor arguments must be hex (ABI-encoded)');
  const hex = value.replace(/^0x/, '').toLowerCase();
  return hex === '' ? null : hex;
}

/** Every field of a verification request, checked; throws BadRequestError naming the first problem. */
export function parseVerificationRequest(fields: {
  address: Hex;
  input: unknown;
  contractName: unknown;
  compilerVersion: unknown;
  constructorArguments?: unknown;
}): VerificationRequest {
  const input = parseStandardInput(fields.input);
  return {
    address: fields.address.toLowerCase() as Hex,
    input,
    ...parseContractName(fields.contractName, input),
    compilerVersion: parseCompilerVersion(fields.compilerVersion),
    constructorArguments: parseConstructorArguments(fields.constructorArguments),
  };
}
