// ERC-4337 in the built-in genesis (devnet and testnet): EntryPoint v0.6 and v0.7 at their canonical
// addresses, each with the SimpleAccountFactory that wallets and SDKs use with it at its canonical
// address, so smart accounts work on a fresh network without a deployment step.
// The creation code is compiled from @account-abstraction/contracts by scripts/build-entrypoints.mjs
// (entrypoints.generated.ts; docs/account-abstraction.md has the compilers and settings). Each account
// is allocated with `initCode`, so its constructor runs at genesis: an EntryPoint creates its
// SenderCreator and a factory its SimpleAccount implementation at CREATE(address, 1), as on public
// networks.
import type { GenesisAccount } from '../native/index.js';
import { parseAddress } from './address.js';
import { entryPointV06, entryPointV07, simpleAccountFactoryV06, simpleAccountFactoryV07 } from './entrypoints.generated.js';

/** EntryPoint v0.6 (@account-abstraction/contracts 0.6.0). */
export const ENTRY_POINT_V06 = '0x5FF137D4b0FDCD49DcA30c7CF57E578a026d2789';
/** EntryPoint v0.7 (@account-abstraction/contracts 0.7.0). */
export const ENTRY_POINT_V07 = '0x0000000071727De22E5E9d8BAf0edAc6f37da032';
/** SimpleAccountFactory of v0.6, constructed with ENTRY_POINT_V06. */
export const SIMPLE_ACCOUNT_FACTORY_V06 = '0x9406Cc6185a346906296840746125a0E44976454';
/** SimpleAccountFactory of v0.7, constructed with ENTRY_POINT_V07. */
export const SIMPLE_ACCOUNT_FACTORY_V07 = '0x91E60e0613810449d098b0b5Ec8b51A0FE8c8985';

/** The EntryPoints of the built-in genesis, oldest first. */
export const ENTRY_POINTS = [ENTRY_POINT_V06, ENTRY_POINT_V07] as const;

function hex(code: string): Buffer {
  return Buffer.from(code.slice(2), 'hex');
}

/** A factory's creation code followed by its constructor argument, the EntryPoint (ABI-encoded address). */
function factoryInitCode(initCode: string, entryPoint: string): Buffer {
  return Buffer.concat([hex(initCode), Buffer.alloc(12), parseAddress(entryPoint)]);
}

/** The four genesis accounts; their constructors add the SenderCreators and SimpleAccount implementations. */
export function accountAbstractionAccounts(): GenesisAccount[] {
  return [
    { address: parseAddress(ENTRY_POINT_V06), balance: 0n, initCode: hex(entryPointV06.initCode) },
    { address: parseAddress(ENTRY_POINT_V07), balance: 0n, initCode: hex(entryPointV07.initCode) },
    { address: parseAddress(SIMPLE_ACCOUNT_FACTORY_V06), balance: 0n, initCode: factoryInitCode(simpleAccountFactoryV06.initCode, ENTRY_POINT_V06) },
    { address: parseAddress(SIMPLE_ACCOUNT_FACTORY_V07), balance: 0n, initCode: factoryInitCode(simpleAccountFactoryV07.initCode, ENTRY_POINT_V07) },
  ];
}
