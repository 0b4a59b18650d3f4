// The Contracts category: verified contracts, a contract's creation and verification, its ABI and
// sources, and source verification (Solidity standard JSON input, compiled with solc-js).
import type { RouteDef, RouteModule, Schema } from '../definition.js';
import { contractsHandlers } from '../handlers/contracts.js';
import { pageParams, pageSchema, schemas } from '../validate.js';
import { contracts as params } from '../../params.js';

const nullable = (schema: Schema): Schema => ({ ...schema, type: [schema.type as string, 'null'] });

const optimizer: Schema = {
  type: 'object',
  required: ['enabled', 'runs'],
  properties: { enabled: { type: 'boolean' }, runs: { type: 'integer' } },
};
const match: Schema = { type: 'string', enum: ['full', 'partial'], description: 'full: byte for byte, metadata included; partial: all but the CBOR metadata tail' };
const guid: Schema = { type: 'string', pattern: `^[a-z0-9]{${params.guidLength}}$`, description: 'verification GUID' };
const addressParam = { name: 'address', in: 'path' as const, required: true, description: 'contract address', schema: schemas.address };

const listing: Schema = {
  type: 'object',
  required: ['address', 'contractName', 'compilerVersion', 'optimizer', 'match', 'verifiedAt'],
  properties: {
    address: schemas.address,
    contractName: { type: 'string' },
    compilerVersion: { type: 'string' },
    optimizer,
    match,
    verifiedAt: { type: 'integer', description: 'unix seconds' },
  },
};

const contract: Schema = {
  type: 'object',
  required: ['address', 'codeSize', 'creator', 'txHash', 'blockNumber', 'timestamp', 'verified'],
  properties: {
    address: schemas.address,
    codeSize: { type: 'integer', description: 'bytes of runtime code' },
    creator: { ...nullable(schemas.address), description: 'null when the index did not see the creation (genesis, or created by a contract)' },
    txHash: nullable(schemas.hash),
    blockNumber: { type: ['integer', 'null'] },
    timestamp: { type: ['integer', 'null'] },
    verified: { type: 'boolean' },
    contractName: { type: ['string', 'null'] },
    compilerVersion: { type: ['string', 'null'] },
    optimizer: { ...optimizer, type: ['object', 'null'] },
    evmVersion: { type: ['string', 'null'], description: 'null: the compiler default' },
    viaIR: { type: ['boolean', 'null'] },
    license: { type: ['string', 'null'] },
    match: { ...match, type: ['string', 'null'], enum: ['full', 'partial', null] },
    verifiedAt: { type: ['integer', 'null'] },
  },
};

const verification: Schema = {
  type: 'object',
  required: ['guid', 'address', 'contractName', 'compilerVersion', 'status', 'reason', 'match', 'submittedAt', 'completedAt'],
  properties: {
    guid,
    address: schemas.address,
    contractName: { type: 'string', description: 'path:Name' },
    compilerVersion: { type: 'string' },
    status: { type: 'string', enum: ['pending', 'pass', 'fail'] },
    reason: { type: ['string', 'null'], description: 'why it failed' },
    match: { ...match, type: ['string', 'null'], enum: ['full', 'partial', null] },
    submittedAt: { type: 'integer', description: 'unix seconds' },
    completedAt: { type: ['integer', 'null'] },
  },
};

const standardJsonInput: Schema = {
  type: 'object',
  required: ['language', 'sources'],
  description: 'Solidity standard JSON input with inline sources (as Hardhat writes it in build-info)',
  properties: {
    language: { type: 'string', enum: ['Solidity'] },
    sources: { type: 'object', description: 'path -> {content}' },
    settings: { type: 'object' },
  },
};

export const contractsDefinitions: RouteDef[] = [
  {
    id: 'listVerifiedContracts',
    method: 'GET',
    path: '/contracts',
    category: 'Contracts',
    summary: 'Verified contracts, most recently verified first',
    auth: 'public',
    params: pageParams,
    response: pageSchema(listing),
  },
  {
    id: 'getVerification',
    method: 'GET',
    path: '/contracts/verifications/{guid}',
    category: 'Contracts',
    summary: 'Status of a source verification: pending, pass, or fail with the reason',
    auth: 'public',
    params: [{ name: 'guid', in: 'path', required: true, description: 'GUID answered by the verify request', schema: guid }],
    response: verification,
  },
  {
    id: 'getContract',
    method: 'GET',
    path: '/contracts/{address}',
    category: 'Contracts',
    summary: 'A contract: its creation (creator, transaction, block, time) and, when verified, its compiler and settings',
    auth: 'public',
    params: [addressParam],
    response: contract,
  },
  {
    id: 'getContractAbi',
    method: 'GET',
    path: '/contracts/{address}/abi',
    category: 'Contracts',
    summary: 'The ABI of a verified contract',
    auth: 'public',
    params: [addressParam],
    response: { type: 'object', required: ['address', 'abi'], properties: { address: schemas.address, abi: { type: 'array' } } },
  },
  {
    id: 'getContractSource',
    method: 'GET',
    path: '/contracts/{address}/source',
    category: 'Contracts',
    summary: 'The verified sources of a contract, with the compiler settings and constructor arguments',
    auth: 'public',
    params: [addressParam],
    response: {
      type: 'object',
      required: ['address', 'contractName', 'sourcePath', 'compilerVersion', 'language', 'sources', 'settings', 'constructorArguments'],
      properties: {
        address: schemas.address,
        contractName: { type: 'string' },
        sourcePath: { type: 'string', description: 'the file that defines the contract' },
        compilerVersion: { type: 'string' },
        language: { type: 'string' },
        sources: { type: 'object', description: 'path -> {content}' },
        settings: { type: 'object' },
        constructorArguments: { ...schemas.hex, description: 'ABI-encoded constructor arguments' },
        license: { type: ['string', 'null'] },
        match,
      },
    },
  },
  {
    id: 'readContract',
    method: 'POST',
    path: '/contracts/{address}/read',
    category: 'Contracts',
    summary:
      "Calls a view or pure function of a verified contract at the head (eth_call), its arguments and result encoded and decoded with the contract's ABI (Blockscout's query-read-method).",
    auth: 'public',
    params: [addressParam],
    body: {
      type: 'object',
      required: ['method'],
      additionalProperties: false,
      properties: {
        method: { type: 'string', maxLength: 1024, description: 'a function name, or its signature such as balanceOf(address) when the name is overloaded' },
        args: { type: 'array', maxItems: 64, description: 'the arguments, as JSON (numbers as decimal strings)' },
      },
    },
    response: {
      type: 'object',
      required: ['method', 'outputs', 'returnData'],
      properties: {
        method: { type: 'string' },
        outputs: { type: 'array', items: { type: 'object', properties: { name: { type: 'string' }, type: { type: 'string' }, value: {} } } },
        returnData: schemas.hex,
      },
    },
  },
  {
    id: 'verifyContract',
    method: 'POST',
    path: '/contracts/{address}/verify',
    category: 'Contracts',
    summary:
      'Verify a contract: compiles the standard JSON input and accepts it when the runtime code equals the code on chain (immutables masked; a differing metadata tail is a partial match). Answers the finished verification; a verified contract cannot be verified again (409).',
    auth: 'public',
    params: [addressParam],
    body: {
      type: 'object',
      required: ['input', 'compilerVersion', 'contractName'],
      additionalProperties: false,
      properties: {
        input: standardJsonInput,
        compilerVersion: { type: 'string', maxLength: 64, description: 'e.g. v0.8.30+commit.73712a01 (the versions installed on the node)' },
        contractName: { type: 'string', maxLength: 1024, description: 'path:Name, e.g. contracts/Token.sol:Token' },
        constructorArguments: { type: 'string', pattern: '^(0x)?([0-9a-fA-F]{2})*$', description: 'ABI-encoded; read from the creation transaction when absent' },
      },
    },
    response: verification,
  },
];

export const contractsRoutes: RouteModule = { definitions: contractsDefinitions, handlers: contractsHandlers };
