// The Contracts category: verified contracts, a contract's creation and verification, its ABI and
// sources, and source verification (Solidity standard JSON input, compiled with solc-js).
import { object, pageParams, pageSchema, routes, schemas, type Api, type FromSchema } from '../schema.js';
import { contracts as params } from '../../params.js';

const optimizer = object({ enabled: { type: 'boolean' }, runs: { type: 'integer' } });
const match = { type: 'string', enum: ['full', 'partial'], description: 'full: byte for byte, metadata included; partial: all but the CBOR metadata tail' } as const;
const matchOrNull = { ...match, type: ['string', 'null'], enum: ['full', 'partial', null] } as const;
const guid = { type: 'string', pattern: `^[a-z0-9]{${params.guidLength}}$`, description: 'verification GUID' } as const;
const addressParam = { name: 'address', in: 'path', required: true, description: 'contract address', schema: schemas.address } as const;

const listing = object({
  address: schemas.address,
  contractName: { type: 'string' },
  compilerVersion: { type: 'string' },
  optimizer,
  match,
  verifiedAt: { type: 'integer', description: 'unix seconds' },
});

const contract = object(
  {
    address: schemas.address,
    codeSize: { type: 'integer', description: 'bytes of runtime code' },
    creator: { ...schemas.address, type: ['string', 'null'], description: 'null when the index did not see the creation (genesis, or created by a contract)' },
    txHash: { ...schemas.hash, type: ['string', 'null'] },
    blockNumber: { type: ['integer', 'null'] },
    timestamp: { type: ['integer', 'null'] },
    verified: { type: 'boolean' },
    contractName: { type: ['string', 'null'] },
    compilerVersion: { type: ['string', 'null'] },
    optimizer: { oneOf: [optimizer, { type: 'null' }] },
    evmVersion: { type: ['string', 'null'], description: 'null: the compiler default' },
    viaIR: { type: ['boolean', 'null'] },
    license: { type: ['string', 'null'] },
    match: matchOrNull,
    verifiedAt: { type: ['integer', 'null'] },
  },
  ['contractName', 'compilerVersion', 'optimizer', 'evmVersion', 'viaIR', 'license', 'match', 'verifiedAt'],
);

const verification = object({
  guid,
  address: schemas.address,
  contractName: { type: 'string', description: 'path:Name' },
  compilerVersion: { type: 'string' },
  status: { type: 'string', enum: ['pending', 'pass', 'fail'] },
  reason: { type: ['string', 'null'], description: 'why it failed' },
  match: matchOrNull,
  submittedAt: { type: 'integer', description: 'unix seconds' },
  completedAt: { type: ['integer', 'null'] },
});

/** Sources by path, each with its text. */
const sources = { type: 'object', description: 'path -> {content}', additionalProperties: object({ content: { type: 'string' } }) } as const;
/** Solc settings as given (read whole, not checked field by field: solc judges them). */
const settings = {
  type: 'object',
  description: 'solc settings: optimizer, evmVersion, viaIR, remappings, libraries, metadata, outputSelection',
  additionalProperties: { description: 'a setting as solc takes it' },
} as const;

const standardJsonInput = {
  type: 'object',
  required: ['language', 'sources'],
  description: 'Solidity standard JSON input with inline sources (as Hardhat writes it in build-info)',
  properties: {
    language: { type: 'string', enum: ['Solidity'] },
    sources: { type: 'object', description: 'path -> {content}', additionalProperties: { description: '{content: source text}' } },
    settings,
  },
} as const;

/** A parameter of an ABI entry (a tuple's components are parameters too). */
const abiParameter = object(
  {
    name: { type: 'string' },
    type: { type: 'string' },
    internalType: { type: 'string' },
    indexed: { type: 'boolean', description: 'an event parameter that is a topic' },
    components: { type: 'array', description: "a tuple's fields, each a parameter like this one", items: { description: 'an ABI parameter' } },
  },
  ['name', 'internalType', 'indexed', 'components'],
);
/** An entry of a contract's ABI as solc writes it. */
export const abiEntrySchema = object(
  {
    type: { type: 'string', enum: ['function', 'event', 'error', 'constructor', 'fallback', 'receive'] },
    name: { type: 'string' },
    inputs: { type: 'array', items: abiParameter },
    outputs: { type: 'array', items: abiParameter },
    stateMutability: { type: 'string', enum: ['pure', 'view', 'nonpayable', 'payable'] },
    anonymous: { type: 'boolean' },
  },
  ['name', 'inputs', 'outputs', 'stateMutability', 'anonymous'],
);
export type AbiEntry = FromSchema<typeof abiEntrySchema>;

export const contractsDefinitions = routes([
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
    response: object({ address: schemas.address, abi: { type: 'array', items: abiEntrySchema } }),
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
        sources,
        settings,
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
        args: { type: 'array', maxItems: 64, description: 'the arguments, as JSON (numbers as decimal strings)', items: { description: 'an argument as JSON' } },
      },
    },
    response: {
      type: 'object',
      required: ['method', 'outputs', 'returnData'],
      properties: {
        method: { type: 'string' },
        outputs: { type: 'array', items: object({ name: { type: 'string' }, type: { type: 'string' }, value: { description: 'the decoded value as JSON (integers as decimal strings)' } }) },
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
]);

export type ContractsApi = Api<typeof contractsDefinitions>;
