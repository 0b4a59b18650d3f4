// The accounts of the standard test mnemonic (`test test … junk`): the devnet funds them, and since
// their keys are public, testnet and mainnet refuse to fund them or take them as validator or faucet.
import { mnemonicToSeedSync } from '@scure/bip39';
import { HDKey } from '@scure/bip32';
import { secp256k1 } from '@noble/curves/secp256k1.js';
import { bundler, chain as chainParams, faucet } from '../params.js';
import { addressOfPublicKey, checksumAddress } from './address.js';

/** One account of the dev mnemonic: its address and its (public, test-only) private key. */
export interface DevAccount {
  index: number;
  /** EIP-55 checksummed address. */
  address: string;
  addressBytes: Buffer;
  privateKey: `0x${string}`;
  balance: bigint;
}

let parentKey: HDKey | undefined;
let devAccountCache: readonly DevAccount[] | undefined;
let faucetCache: DevAccount | undefined;
let bundlerCache: DevAccount | undefined;
let publicIndexCache: Map<string, number> | undefined;

/** Account `index` of the dev mnemonic at `${devDerivationPath}${index}`. */
function deriveDevKey(index: number, balance: bigint): DevAccount {
  // The seed (PBKDF2) and the path up to the last level are derived once: they are the slow part.
  parentKey ??= HDKey.fromMasterSeed(mnemonicToSeedSync(chainParams.devMnemonic)).derive(chainParams.devDerivationPath.replace(/\/$/, ''));
  const key = parentKey.deriveChild(index);
  if (!key.privateKey) throw new Error(`dev account ${index}: derivation gave no private key`);
  const addressBytes = addressOfPublicKey(secp256k1.getPublicKey(key.privateKey, false));
  return {
    index,
    address: checksumAddress(addressBytes),
    addressBytes,
    privateKey: `0x${Buffer.from(key.privateKey).toString('hex')}`,
    balance,
  };
}

/** The devnet faucet account (params.faucet.derivationIndex of the dev mnemonic). */
export function faucetAccount(): DevAccount {
  faucetCache ??= deriveDevKey(faucet.derivationIndex, faucet.genesisBalance);
  return faucetCache;
}

/** The devnet bundler account (params.bundler.derivationIndex of the dev mnemonic): it signs the node's handleOps bundles. */
export function bundlerAccount(): DevAccount {
  bundlerCache ??= deriveDevKey(bundler.derivationIndex, bundler.genesisBalance);
  return bundlerCache;
}

/** The first params.chain.devAccountCount accounts of the standard test mnemonic (derived once, then cached). */
export function devAccounts(): readonly DevAccount[] {
  devAccountCache ??= Object.freeze(Array.from({ length: chainParams.devAccountCount }, (_, i) => deriveDevKey(i, chainParams.devAccountBalance)));
  return devAccountCache;
}

/**
 * The dev-mnemonic index of `address` when it is one of the publicly known accounts (the first
 * params.chain.publicDevAccountsChecked, and the faucet's), else undefined.
 */
export function publicDevIndex(address: Uint8Array): number | undefined {
  if (!publicIndexCache) {
    const known = new Map<string, number>();
    for (let i = 0; i < chainParams.publicDevAccountsChecked; i++) known.set(deriveDevKey(i, 0n).addressBytes.toString('hex'), i);
    known.set(faucetAccount().addressBytes.toString('hex'), faucet.derivationIndex);
    known.set(bundlerAccount().addressBytes.toString('hex'), bundler.derivationIndex);
    publicIndexCache = known;
  }
  return publicIndexCache.get(Buffer.from(address).toString('hex'));
}

/** The refusal for a public dev account used where a key of one's own is needed; `what` names the setting. */
export function publicKeyRefusal(what: string, address: Uint8Array, network: string): string | undefined {
  const index = publicDevIndex(address);
  if (index === undefined) return undefined;
  return (
    `${what} ${checksumAddress(address)}: account ${index} of the public test mnemonic, whose key everyone knows; ` +
    `${network} takes no public key, use one of your own`
  );
}
