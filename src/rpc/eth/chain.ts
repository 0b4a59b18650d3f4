// eth_chainId, eth_blockNumber, eth_syncing, eth_accounts, eth_protocolVersion, eth_config: what the
// node is, how its chain is configured and where its head is.
import { crc32 } from 'node:zlib';
import { toQuantity } from '../hex.js';
import { method, type MethodTable, type RpcContext } from '../method.js';

/** eth/68, which reth and Erigon answer eth_protocolVersion with (geth 1.14 dropped the method). */
const ETH_PROTOCOL_VERSION = 68;

/**
 * The precompiles of the EVM's Prague rules, which every block runs under (crates/svc-evm: SpecId::PRAGUE),
 * by their EIP-7910 names.
 */
const PRAGUE_PRECOMPILES: readonly [string, number][] = [
  ['ECREC', 0x01],
  ['SHA256', 0x02],
  ['RIPEMD160', 0x03],
  ['ID', 0x04],
  ['MODEXP', 0x05],
  ['BN254_ADD', 0x06],
  ['BN254_MUL', 0x07],
  ['BN254_PAIRING', 0x08],
  ['BLAKE2F', 0x09],
  ['KZG_POINT_EVALUATION', 0x0a],
  ['BLS12_G1ADD', 0x0b],
  ['BLS12_G1MSM', 0x0c],
  ['BLS12_G2ADD', 0x0d],
  ['BLS12_G2MSM', 0x0e],
  ['BLS12_PAIRING_CHECK', 0x0f],
  ['BLS12_MAP_FP_TO_G1', 0x10],
  ['BLS12_MAP_FP2_TO_G2', 0x11],
];

/**
 * EIP-7910's answer. The chain has one configuration, active from genesis (activationTime 0), so
 * `next` and `last` are null; its fork id is EIP-6122's FORK_HASH with no forks, the CRC32 of the
 * genesis hash. It carries no blobs (blobSchedule null) and makes none of Ethereum's system calls
 * (EIP-4788, EIP-2935, EIP-7002, EIP-7251, EIP-6110); its system contracts are its system
 * modules, named `<MODULE>_MODULE_ADDRESS`.
 */
function ethConfig(ctx: RpcContext): Record<string, unknown> {
  const { chain, app, config } = ctx.services;
  // A node that joined by state sync may not hold block 0: then the fork id is unknown (null).
  const genesisHash = chain.getBlock({ number: 0 }, false)?.hash;
  const address = (n: number): string => `0x${n.toString(16).padStart(40, '0')}`;
  const systemContracts = Object.fromEntries(
    app.modules.modules.map((m) => [`${m.name.toUpperCase()}_MODULE_ADDRESS`, m.address.toLowerCase()] as const).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)),
  );
  return {
    current: {
      activationTime: 0,
      blobSchedule: null,
      chainId: toQuantity(config.chainId),
      forkId: typeof genesisHash === 'string' ? `0x${crc32(Buffer.from(genesisHash.slice(2), 'hex')).toString(16).padStart(8, '0')}` : null,
      precompiles: Object.fromEntries(PRAGUE_PRECOMPILES.map(([name, n]) => [name, address(n)])),
      systemContracts,
    },
    next: null,
    last: null,
  };
}

export const chainMethods: MethodTable = {
  eth_chainId: method([], (ctx) => toQuantity(ctx.services.config.chainId)),

  eth_blockNumber: method([], (ctx) => toQuantity(ctx.services.chain.head().number)),

  // geth's answer: false when in step, else where the sync started, stands and is going.
  eth_syncing: method([], (ctx) => {
    const { syncing, highestBlock } = ctx.services.network.sync();
    if (!syncing) return false;
    return {
      startingBlock: toQuantity(ctx.services.startingBlock),
      currentBlock: toQuantity(ctx.services.chain.head().number),
      highestBlock: toQuantity(highestBlock),
    };
  }),

  // The node holds no keys: transactions are signed by the wallet and sent with eth_sendRawTransaction.
  eth_accounts: method([], () => []),

  eth_protocolVersion: method([], () => toQuantity(ETH_PROTOCOL_VERSION)),

  eth_config: method([], (ctx) => ethConfig(ctx)),
};
