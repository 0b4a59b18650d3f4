// A browser wallet (an injected EIP-1193 provider at window.ethereum): connecting, keeping to this
// chain, and sending a system module's transaction through it. The wallet holds the key and signs;
// the page only encodes the call and follows the transaction to its receipt.
import { useEffect, useState } from 'preact/hooks';
import { api } from '../api.js';
import { encodeCall, type AbiValue, type SystemModules } from './abi.js';

interface Eip1193Provider {
  request(args: { method: string; params?: unknown[] }): Promise<unknown>;
  on?(event: string, listener: (...args: unknown[]) => void): void;
}

export interface WalletState {
  account: string | null;
  chainId: number | null;
  connecting: boolean;
  error: string | null;
}

/** A sent transaction: its hash once the wallet signed it, then the receipt's verdict. */
export interface TxOutcome {
  hash: string;
  status: 'pending' | 'success' | 'reverted';
  reason: string | null;
  block: number | null;
}

const RECEIPT_WAIT_MS = 120_000;
const POLL_MS = 400;

let state: WalletState = { account: null, chainId: null, connecting: false, error: null };
const listeners = new Set<() => void>();
let subscribed = false;
let modules: Promise<SystemModules> | null = null;

function set(next: Partial<WalletState>): void {
  state = { ...state, ...next };
  for (const l of listeners) l();
}

function provider(): Eip1193Provider | undefined {
  return (window as unknown as { ethereum?: Eip1193Provider }).ethereum;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** A wallet's error as a sentence: EIP-1193 errors carry a code and a message. */
export function walletError(err: unknown): string {
  const e = err as { code?: number; message?: string; data?: { message?: string } } | null;
  if (e?.code === 4001) return 'Refused in the wallet.';
  if (e?.code === 4902) return 'The wallet does not know this chain: add its RPC endpoint to the wallet first.';
  return e?.data?.message ?? e?.message ?? String(err);
}

/** The node's system modules (addresses, functions and selectors), fetched once. */
export function systemModules(): Promise<SystemModules> {
  modules ??= api<SystemModules>('/network/modules').catch((err: unknown) => {
    modules = null;
    throw err;
  });
  return modules;
}

async function ensureChain(eth: Eip1193Provider, wanted: number): Promise<void> {
  if (Number(await eth.request({ method: 'eth_chainId' })) === wanted) return;
  await eth.request({ method: 'wallet_switchEthereumChain', params: [{ chainId: `0x${wanted.toString(16)}` }] });
  const now = Number(await eth.request({ method: 'eth_chainId' }));
  if (now !== wanted) throw new Error(`The wallet is on chain ${now}, not this chain (${wanted}).`);
  set({ chainId: now });
}

export function hasWallet(): boolean {
  return provider() !== undefined;
}

export async function connect(): Promise<void> {
  const eth = provider();
  if (!eth) {
    set({ error: 'No browser wallet found: install one (an EIP-1193 provider at window.ethereum).' });
    return;
  }
  set({ connecting: true, error: null });
  try {
    const accounts = (await eth.request({ method: 'eth_requestAccounts' })) as string[];
    if (!accounts[0]) throw new Error('The wallet shared no account.');
    const { chainId } = await systemModules();
    await ensureChain(eth, chainId);
    if (!subscribed && eth.on) {
      subscribed = true;
      eth.on('accountsChanged', (a) => set({ account: (a as string[])[0]?.toLowerCase() ?? null }));
      eth.on('chainChanged', (c) => set({ chainId: Number(c) }));
    }
    set({ account: accounts[0].toLowerCase(), chainId, connecting: false });
  } catch (err) {
    set({ connecting: false, error: walletError(err) });
  }
}

export function useWallet(): WalletState {
  const [s, setS] = useState(state);
  useEffect(() => {
    const update = () => setS(state);
    listeners.add(update);
    update();
    return () => void listeners.delete(update);
  }, []);
  return s;
}

/**
 * Why a module transaction reverted: the same call re-run through the wallet's eth_call at the head,
 * where the node runs the module and answers its reason (a module keeps no state history, so the
 * head is the only state it can be asked about); null when the call no longer fails there.
 */
async function revertReason(eth: Eip1193Provider, tx: Record<string, string>): Promise<string | null> {
  try {
    await eth.request({ method: 'eth_call', params: [tx, 'latest'] });
    return null;
  } catch (err) {
    return walletError(err).replace(/^execution reverted:\s*/, '');
  }
}

/**
 * Sends `module.fn(args)` with `value` wei from the connected account through the wallet; calls
 * `onHash` once it is signed and resolves with the receipt's verdict.
 */
export async function sendModuleCall(moduleName: string, fnName: string, args: AbiValue[], value: bigint, onHash: (hash: string) => void): Promise<TxOutcome> {
  const eth = provider();
  if (!eth || !state.account) throw new Error('Connect a wallet first.');
  const m = await systemModules();
  const mod = m.modules.find((x) => x.name === moduleName);
  const fn = mod?.functions.find((f) => f.name === fnName && f.inputs.length === args.length);
  if (!mod || !fn) throw new Error(`This node has no ${moduleName}.${fnName}.`);
  await ensureChain(eth, m.chainId);
  const tx = { from: state.account, to: mod.address, data: encodeCall(fn, args), value: `0x${value.toString(16)}` };
  const hash = (await eth.request({ method: 'eth_sendTransaction', params: [tx] })) as string;
  onHash(hash);
  const deadline = Date.now() + RECEIPT_WAIT_MS;
  while (Date.now() < deadline) {
    const receipt = (await eth.request({ method: 'eth_getTransactionReceipt', params: [hash] })) as { status: string; blockNumber: string } | null;
    if (receipt) {
      const block = Number(receipt.blockNumber);
      if (receipt.status === '0x1') return { hash, status: 'success', reason: null, block };
      return { hash, status: 'reverted', reason: await revertReason(eth, tx), block };
    }
    await sleep(POLL_MS);
  }
  return { hash, status: 'pending', reason: `no receipt after ${RECEIPT_WAIT_MS / 1000} s`, block: null };
}
