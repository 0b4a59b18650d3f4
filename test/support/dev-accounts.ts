// The devnet's prefunded accounts: the standard test mnemonic, as Hardhat and anvil use it.
import { mnemonicToAccount } from 'viem/accounts';
import { bytesToHex, type Hex } from 'viem';

export const DEV_MNEMONIC = 'test test test test test test test test test test test junk';
export const DEV_CHAIN_ID = 9000;
/** Genesis balance of every dev account: 10,000 ether. */
export const DEV_BALANCE = 10_000n * 10n ** 18n;
export const MULTICALL3_ADDRESS = '0xcA11bde05977b3631167028862bE2a173976CA11' as const;

/** Private keys of the first `count` accounts of the mnemonic (m/44'/60'/0'/0/i). */
export function devPrivateKeys(count = 10): Hex[] {
  const keys: Hex[] = [];
  for (let i = 0; i < count; i++) {
    const key = mnemonicToAccount(DEV_MNEMONIC, { addressIndex: i }).getHdKey().privateKey;
    if (!key) throw new Error(`no private key for dev account ${i}`);
    keys.push(bytesToHex(key));
  }
  return keys;
}
