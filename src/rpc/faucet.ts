// The faucet's state, kept beside the RPC context that holds it (svc_requestFaucet is in
// rpc/svc/faucet.ts). Devnet and testnet hand out a fixed amount from the faucet account, at most
// once per address and per client IP within their cooldowns. The built-in devnet signs with its
// public dev faucet key; a testnet node only with the key its operator gave (--faucet-key-file or
// SVC_FAUCET_PRIVATE_KEY), and without one answers -32004 saying so. Mainnet has no faucet (-32004).
import { privateKeyToAccount, type PrivateKeyAccount } from 'viem/accounts';
import { checksumAddress } from '../chain/address.js';
import { faucetAccount } from '../chain/dev-accounts.js';
import type { NodeConfig } from '../config.js';
import type { NodeServices } from '../services.js';
import { faucet as faucetParams } from '../params.js';
import { FaucetCooldownError, MethodNotSupportedError, TransactionRejectedError } from './errors.js';

/** The key the faucet signs with, or why this node serves no faucet. */
export function faucetSigner(
  config: Pick<NodeConfig, 'network' | 'genesisFile' | 'faucetKey'>,
): { privateKey: `0x${string}`; address: string } | { disabled: string } {
  if (config.network === 'mainnet') return { disabled: 'mainnet has no faucet' };
  if (config.network === 'testnet') {
    if (config.faucetKey) return { privateKey: config.faucetKey.privateKey(), address: config.faucetKey.address };
    return { disabled: 'this testnet node has no faucet key: its operator starts it with --faucet-key-file <file> or SVC_FAUCET_PRIVATE_KEY' };
  }
  if (config.genesisFile) return { disabled: 'the devnet faucet serves the built-in devnet genesis only' };
  const dev = faucetAccount();
  return { privateKey: dev.privateKey, address: dev.address };
}

/** Last funding times (wall clock, milliseconds) by address and by IP; entries past their cooldown are forgotten. */
export class Faucet {
  private readonly byAddress = new Map<string, number>();
  private readonly byIp = new Map<string, number>();
  private readonly signer: PrivateKeyAccount | undefined;
  private readonly disabled: string | undefined;

  constructor(
    private readonly services: NodeServices,
    private readonly now: () => number = Date.now,
  ) {
    const signer = faucetSigner(services.config);
    if ('disabled' in signer) {
      this.disabled = signer.disabled;
      if (services.config.network === 'testnet') services.log.warn({ reason: signer.disabled }, 'faucet disabled');
    } else {
      this.signer = privateKeyToAccount(signer.privateKey);
    }
  }

  /** Sends params.faucet.amount to `to`; returns the transaction hash. */
  async fund(to: Buffer, ip: string): Promise<{ hash: Buffer; amount: bigint }> {
    const { config, chain, mempool } = this.services;
    const signer = this.signer;
    if (!signer) throw new MethodNotSupportedError('svc_requestFaucet', this.disabled ?? 'no faucet');
    const now = this.now();
    this.forget(now);
    const addressKey = to.toString('hex');
    const wait = (since: number | undefined, seconds: number) => (since === undefined ? 0 : Math.ceil((since + seconds * 1000 - now) / 1000));
    const addressWait = wait(this.byAddress.get(addressKey), faucetParams.addressCooldownSeconds);
    if (addressWait > 0) throw new FaucetCooldownError('address', addressWait);
    const ipWait = wait(this.byIp.get(ip), faucetParams.ipCooldownSeconds);
    if (ipWait > 0) throw new FaucetCooldownError('IP', ipWait);

    const baseFee = chain.nextBaseFee();
    const signed = await signer.signTransaction({
      type: 'eip1559',
      chainId: config.chainId,
      nonce: Number(mempool.pendingNonce(Buffer.from(signer.address.slice(2), 'hex'))),
      to: checksumAddress(to) as `0x${string}`,
      value: faucetParams.amount,
      gas: 21_000n,
      maxPriorityFeePerGas: faucetParams.tip,
      maxFeePerGas: 2n * baseFee + faucetParams.tip,
    });
    let hash: Buffer;
    try {
      hash = await mempool.submit(Buffer.from(signed.slice(2), 'hex'));
    } catch (err) {
      throw new TransactionRejectedError(`faucet transfer refused: ${(err as Error).message}`, undefined, { cause: err });
    }
    this.byAddress.set(addressKey, now);
    this.byIp.set(ip, now);
    return { hash, amount: faucetParams.amount };
  }

  private forget(now: number): void {
    for (const [k, t] of this.byAddress) if (now - t >= faucetParams.addressCooldownSeconds * 1000) this.byAddress.delete(k);
    for (const [k, t] of this.byIp) if (now - t >= faucetParams.ipCooldownSeconds * 1000) this.byIp.delete(k);
  }
}
