// The start banner, in the spirit of anvil's: what the node runs, where it listens, and on devnet
// the funded accounts with their (public, test-only) private keys. No other key is ever printed:
// testnet shows its faucet's address only.
import { checksumAddress } from '../chain/address.js';
import { bundlerSigner } from '../aa/bundler.js';
import { devAccounts, hasDevAccounts } from '../chain/genesis.js';
import { faucetSigner } from '../rpc/faucet.js';
import type { RunningNode } from '../node.js';
import type { NodeServices } from '../services.js';
import { chain as chainParams } from '../params.js';

const WEI_PER_ETHER = 10n ** 18n;
const WEI_PER_GWEI = 10n ** 9n;

/** One aligned `label value` line. */
const row = (label: string, value: string): string => label.padEnd(18) + value;

/** A wei amount in ether, without trailing zeros. */
export function formatEther(wei: bigint): string {
  const whole = wei / WEI_PER_ETHER;
  const fraction = (wei % WEI_PER_ETHER).toString().padStart(18, '0').replace(/0+$/, '');
  return fraction ? `${whole}.${fraction}` : `${whole}`;
}

function formatGwei(wei: bigint): string {
  const whole = wei / WEI_PER_GWEI;
  const fraction = (wei % WEI_PER_GWEI).toString().padStart(9, '0').replace(/0+$/, '');
  return fraction ? `${whole}.${fraction}` : `${whole}`;
}

/** The banner text printed once the node listens. */
export function renderBanner(node: RunningNode, version: string): string {
  const { config, services } = node;
  const head = services.chain.head();
  const genesisHash = services.chain.getBlock({ number: 0 }, false)?.['hash'];
  const lines: string[] = [
    '',
    `svc-node ${version}`,
    '',
    row('Network', config.network),
    row('Chain ID', `${config.chainId} (0x${config.chainId.toString(16)})`),
    row('Genesis hash', typeof genesisHash === 'string' ? genesisHash : '(unavailable)'),
    row('Head block', String(head.number)),
    row('Data directory', config.dataDir),
    row('Block time', `${config.blockTimeMs} ms`),
    row('Block gas limit', String(head.gasLimit)),
    row('Base fee', `${formatGwei(services.chain.nextBaseFee())} gwei`),
    row('Coinbase', checksumAddress(node.coinbase)),
    row('Compute mode', computeLine(services.compute)),
  ];
  if (config.network !== 'mainnet') {
    const faucet = faucetSigner(config);
    lines.push(row('Faucet', 'disabled' in faucet ? `disabled (${faucet.disabled})` : faucet.address));
  }
  const bundler = bundlerSigner(config);
  lines.push(row('Bundler', 'disabled' in bundler ? `disabled (${bundler.disabled})` : `${bundler.address} (ERC-4337, beneficiary: the coinbase)`));
  if (hasDevAccounts(config.network, config.genesisFile)) {
    const accounts = devAccounts();
    lines.push('', 'Available Accounts', '==================');
    for (const a of accounts) lines.push(`(${a.index}) ${a.address} (${formatEther(a.balance)} ether)`);
    lines.push('', 'Private Keys', '==================');
    for (const a of accounts) lines.push(`(${a.index}) ${a.privateKey}`);
    lines.push(
      '',
      'Wallet',
      '==================',
      row('Mnemonic', chainParams.devMnemonic),
      row('Derivation path', chainParams.devDerivationPath),
    );
  }
  lines.push('', row('Multicall3', chainParams.multicall3Address), row('JSON-RPC', node.rpcUrl), '');
  return lines.join('\n') + '\n';
}

/** The compute mode and what runs for it. */
function computeLine(compute: NodeServices['compute']): string {
  if (compute.mode === 'pow') return `pow (${compute.powMiner?.threads ?? 0} search thread${compute.powMiner?.threads === 1 ? '' : 's'})`;
  if (compute.mode === 'inference') return `inference (${[...(compute.models?.loaded.keys() ?? [])].join(', ')})`;
  return 'none (--pow-threads 0)';
}
