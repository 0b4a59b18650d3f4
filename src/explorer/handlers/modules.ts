// The system modules as a wallet reaches them: each module's reserved address and the functions of
// its ABI (abi/<name>.json, the one the node decodes transactions with) with their 4-byte
// selectors, the governance vote options in their ABI numbering, and the chain id to sign for. The
// web page encodes its staking, governance and rent transactions from this answer.
import { toFunctionSelector, type AbiFunction } from 'viem';
import { VOTE_OPTIONS } from '../../modules/governance/types.js';
import { routeModule, type Handlers } from '../definition.js';
import { systemModuleRouteDefs } from '../routes/modules.js';

export const moduleHandlers: Handlers<typeof systemModuleRouteDefs> = {
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

export const systemModuleRoutes = routeModule(systemModuleRouteDefs, moduleHandlers);
