// The system modules as a wallet reaches them: each module's reserved address and the functions of
// its ABI (abi/<name>.json, the one the node decodes transactions with) with their 4-byte
// selectors, the governance vote options in their ABI numbering, and the chain id to sign for. The
// web page encodes its staking, governance and rent transactions from this answer.
import { toFunctionSelector, type AbiFunction } from 'viem';
import { VOTE_OPTIONS } from '../../modules/governance/types.js';
import type { Handler, Schema } from '../definition.js';

const inputSchema: Schema = {
  type: 'object',
  required: ['name', 'type'],
  properties: { name: { type: 'string' }, type: { type: 'string', description: 'Solidity ABI type' } },
};

const functionSchema: Schema = {
  type: 'object',
  required: ['name', 'signature', 'selector', 'stateMutability', 'inputs'],
  properties: {
    name: { type: 'string' },
    signature: { type: 'string', description: 'canonical signature, e.g. delegate(address)' },
    selector: { type: 'string', description: '4-byte selector, 0x-prefixed hex' },
    stateMutability: { type: 'string', enum: ['pure', 'view', 'nonpayable', 'payable'] },
    inputs: { type: 'array', items: inputSchema },
  },
};

export const systemModulesSchema: Schema = {
  type: 'object',
  required: ['chainId', 'voteOptions', 'modules'],
  properties: {
    chainId: { type: 'integer' },
    voteOptions: { type: 'array', items: { type: 'string' }, description: 'governance vote options; option n (ABI uint8) is entry n - 1' },
    modules: {
      type: 'array',
      items: {
        type: 'object',
        required: ['name', 'address', 'functions'],
        properties: { name: { type: 'string' }, address: { type: 'string' }, functions: { type: 'array', items: functionSchema } },
      },
    },
  },
};

export const moduleHandlers: Record<string, Handler> = {
  getSystemModules: (_input, { node }) => ({
    chainId: node.config.chainId,
    voteOptions: [...VOTE_OPTIONS],
    modules: node.app.modules.modules.map((m) => ({
      name: m.name,
      address: m.address,
      functions: (m.abi.filter((f) => f.type === 'function') as AbiFunction[]).map((f) => {
        const signature = `${f.name}(${f.inputs.map((i) => i.type).join(',')})`;
        return { name: f.name, signature, selector: toFunctionSelector(signature), stateMutability: f.stateMutability, inputs: f.inputs.map((i) => ({ name: i.name ?? '', type: i.type })) };
      }),
    })),
  }),
};
