// A validator node's part in the bridge (docs/bridge.md): it reads the external chain through
// --bridge-rpc and acts on svc with its operator key (--bridge-key-file; devnet: dev account 0):
//   - attests each contract Deposit at the confirmation depth (attestDeposit), once;
//   - signs each withdrawal burned on svc with the contract's digest (signWithdrawal) when it is in
//     the bridged set;
//   - relays ready withdrawals to the contract (withdraw with the set's signatures in the contract's
//     order), unless started with --no-bridge-relay: anyone may relay, the contract releases an id once;
//   - attests each contract Withdrawal event at the depth (attestRelease), which settles it on svc;
//   - signs a new bridged set recorded at an epoch start when it is in the current one (signValset),
//     relays it (updateValset) and attests the contract's ValsetUpdated event (attestValset).
// What the module decides never depends on this agent: it is one validator's reports, weighed by
// stake in the block. The agent also reads the contract's set and locked ETH, which narrow
// svc_getBridgeStatus's `active` (see status()).
import type { Logger } from 'pino';
import {
  createPublicClient,
  createWalletClient,
  defineChain,
  encodeFunctionData,
  getAddress,
  http,
  parseSignature,
  type Address,
  type Hex,
  type PublicClient,
} from 'viem';
import { privateKeyToAccount, sign, type PrivateKeyAccount } from 'viem/accounts';
import type { ChainApp } from '../chain/app.js';
import type { NodeEvents } from '../chain/events.js';
import type { Mempool } from '../chain/pool.js';
import type { Chain } from '../native/index.js';
import { BRIDGE_ABI, passesThreshold, signedPower } from '../modules/bridge/module.js';
import type { BridgeConfig, BridgeStatus, PendingValset, WithdrawalRecord } from '../modules/bridge/types.js';
import { bridge as params, system } from '../params.js';
import { svcBridgeAbi } from './contract.generated.js';
import { DepositWatcher, ReleaseWatcher, ValsetWatcher } from './watcher.js';

export interface BridgeAgentOptions {
  app: ChainApp;
  chain: Chain;
  mempool: Mempool;
  events: NodeEvents;
  log: Logger;
  chainId: number;
  /** The external chain's JSON-RPC; none: this node does not watch (its status says so). */
  rpcUrl?: string;
  /** The validator's operator key; none: the node watches and reads but neither attests nor signs. */
  privateKey?: Hex;
  /** Whether to relay ready withdrawals (default true). */
  relay?: boolean;
  pollIntervalMs?: number;
}

/** What the node last read of the external contract. */
export interface ExternalView {
  valsetNonce: number;
  validators: Address[];
  powers: bigint[];
  /** locked(0x0): ETH the contract holds for svc. */
  lockedEth: bigint;
  /** The external block it was read at. */
  block: bigint;
}

const lowerAddress = (a: string) => a.toLowerCase() as `0x${string}`;

export class BridgeAgent {
  private readonly log: Logger;
  private readonly account: PrivateKeyAccount | undefined;
  private client: PublicClient | undefined;
  private deposits: DepositWatcher | undefined;
  private releases: ReleaseWatcher | undefined;
  private valsets: ValsetWatcher | undefined;
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;
  private closed = false;
  /** svc transactions this node sent and the pool still holds, by what they do ("deposit:3", "sign:1", "release:1"). */
  private readonly sent = new Map<string, Buffer>();
  /** What was relayed ("withdrawal:1", "valset:2"), and when (a relay that did not land is tried again after a while). */
  private readonly relayed = new Map<string, number>();
  /** Whether --bridge-rpc answered the bridge's external chain id (asked until it does). */
  private chainChecked = false;
  /** The last reading of the contract; its error when the last read failed. */
  external: ExternalView | undefined;
  externalError: string | undefined;

  constructor(private readonly options: BridgeAgentOptions) {
    this.log = options.log.child({ module: 'bridge' });
    if (options.privateKey) this.account = privateKeyToAccount(options.privateKey);
  }

  /** The operator address this node attests and signs as, if it has a key. */
  get address(): Address | undefined {
    return this.account?.address;
  }

  private get config(): BridgeConfig | null {
    return this.options.app.bridge.config;
  }

  /** Starts watching when the chain has a bridge and the node an external RPC. */
  start(): void {
    const config = this.config;
    if (!config || !this.options.rpcUrl) return;
    const chain = defineChain({ id: config.chainId, name: 'bridge external chain', nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 }, rpcUrls: { default: { http: [this.options.rpcUrl] } } });
    this.client = createPublicClient({ chain, transport: http(this.options.rpcUrl, { retryCount: 0, timeout: 10_000 }) }) as PublicClient;
    const contract = getAddress(config.contract);
    this.deposits = new DepositWatcher({ client: this.client, contract, confirmations: config.confirmations, fromBlock: BigInt(config.fromBlock) });
    this.releases = new ReleaseWatcher({ client: this.client, contract, confirmations: config.confirmations, fromBlock: BigInt(config.fromBlock) });
    this.valsets = new ValsetWatcher({ client: this.client, contract, confirmations: config.confirmations, fromBlock: BigInt(config.fromBlock) });
    this.options.events.on('block', this.onBlock);
    this.schedule(0);
    this.log.info({ externalChainId: config.chainId, contract, confirmations: config.confirmations, operator: this.address ?? null, relay: this.options.relay !== false }, 'bridge watcher started');
  }

  close(): void {
    this.closed = true;
    if (this.timer) clearTimeout(this.timer);
    this.options.events.off('block', this.onBlock);
  }

  /** Resolves when the pass in progress (if any) ends. */
  async idle(): Promise<void> {
    await this.running;
  }

  private readonly onBlock = (): void => {
    // Transactions that left the pool were mined or dropped: the state says which.
    for (const [key, hash] of this.sent) if (!this.options.mempool.get(hash)) this.sent.delete(key);
    this.schedule(0);
  };

  private schedule(delayMs: number): void {
    if (this.closed) return;
    if (this.timer) clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      this.timer = undefined;
      if (this.running) {
        this.schedule(50);
        return;
      }
      this.running = this.pass()
        .catch((err: unknown) => {
          this.externalError = (err as Error).message;
          this.log.warn({ err }, 'bridge pass failed; trying again');
        })
        .finally(() => {
          this.running = undefined;
          this.schedule(this.options.pollIntervalMs ?? params.pollIntervalMs);
        });
    }, delayMs);
    this.timer.unref();
  }

  /** One pass: read the contract, report what reached its depth, sign and relay what is open. */
  private async pass(): Promise<void> {
    const config = this.config!;
    const client = this.client!;
    await this.readContract(config, client);
    await this.options.app.settled();
    const bridge = this.options.app.bridge;
    if (this.account) {
      const me = lowerAddress(this.account.address);
      // A validator that is not bonded (jailed, unbonded) attests nothing (its attestations would
      // revert and cost gas every block); its watchers wait, so that it attests what is still open
      // once it is bonded again.
      const bonded = bridge.isBonded(me);
      const found = bonded ? await this.deposits!.poll() : [];
      const released = bonded ? await this.releases!.poll() : [];
      const updated = bonded ? await this.valsets!.poll() : [];
      await this.options.app.settled();
      for (const d of found) {
        const record = bridge.deposit(Number(d.nonce));
        if (record?.minted || record?.attestations.some((a) => a.attesters.includes(me))) continue;
        await this.send(`deposit:${d.nonce}`, encodeFunctionData({ abi: BRIDGE_ABI, functionName: 'attestDeposit', args: [d.nonce, d.token, d.sender, d.recipient, d.amount] }));
      }
      for (const r of released) {
        const w = bridge.withdrawal(Number(r.id));
        if (!w || w.releasedHeight !== null || w.releaseAttesters.includes(me)) continue;
        await this.send(`release:${r.id}`, encodeFunctionData({ abi: BRIDGE_ABI, functionName: 'attestRelease', args: [r.id] }));
      }
      const pending = bridge.pendingValset;
      for (const v of updated) {
        if (!pending || BigInt(pending.nonce) !== v.nonce || pending.attesters.includes(me)) continue;
        if (v.validators.map(lowerAddress).join() !== pending.validators.join() || v.powers.join() !== pending.powers.join()) continue;
        await this.send(`valset-attest:${v.nonce}`, encodeFunctionData({ abi: BRIDGE_ABI, functionName: 'attestValset', args: [v.nonce] }));
      }
      const inCurrent = bridge.valset?.validators.includes(me) ?? false;
      if (pending && inCurrent && !pending.signatures.some((s) => s.validator === me)) {
        const signature = await sign({ hash: pending.digest, privateKey: this.options.privateKey!, to: 'hex' });
        await this.send(`valset-sign:${pending.nonce}`, encodeFunctionData({ abi: BRIDGE_ABI, functionName: 'signValset', args: [BigInt(pending.nonce), signature] }));
      }
      const inSet = inCurrent || (pending?.validators.includes(me) ?? false);
      for (const w of bridge.openWithdrawals()) {
        if (!inSet || w.signatures.some((s) => s.validator === me)) continue;
        const signature = await sign({ hash: w.digest, privateKey: this.options.privateKey!, to: 'hex' });
        await this.send(`sign:${w.id}`, encodeFunctionData({ abi: BRIDGE_ABI, functionName: 'signWithdrawal', args: [BigInt(w.id), signature] }));
      }
      if (this.options.relay !== false) {
        if (pending?.readyHeight != null && this.external && this.external.valsetNonce < pending.nonce) await this.relayValset(config, pending);
        for (const w of bridge.openWithdrawals()) if (w.readyHeight !== null) await this.relay(config, client, w);
      }
    }
  }

  private async readContract(config: BridgeConfig, client: PublicClient): Promise<void> {
    const address = getAddress(config.contract);
    if (!this.chainChecked) {
      const chainId = await client.getChainId();
      if (chainId !== config.chainId) throw new Error(`--bridge-rpc serves chain ${chainId}, the bridge's external chain is ${config.chainId}`);
      this.chainChecked = true;
    }
    const block = await client.getBlockNumber({ cacheTime: 0 });
    const [set, lockedEth] = await Promise.all([
      client.readContract({ address, abi: svcBridgeAbi, functionName: 'validatorSet', blockNumber: block }),
      client.readContract({ address, abi: svcBridgeAbi, functionName: 'locked', args: ['0x0000000000000000000000000000000000000000'], blockNumber: block }),
    ]);
    const [validators, powers, nonce] = set as readonly [readonly Address[], readonly bigint[], bigint];
    this.external = { valsetNonce: Number(nonce), validators: validators.map(lowerAddress), powers: [...powers], lockedEth: lockedEth as bigint, block };
    this.externalError = undefined;
  }

  /** Sends a transaction to the bridge module from the operator key, unless one for `key` is still in the pool. */
  private async send(key: string, data: Hex): Promise<void> {
    if (this.sent.has(key)) return;
    const { chain, mempool, chainId } = this.options;
    const from = Buffer.from(this.account!.address.slice(2), 'hex');
    const baseFee = chain.nextBaseFee();
    const priority = 1_000_000_000n;
    const raw = await this.account!.signTransaction({
      type: 'eip1559',
      chainId,
      nonce: Number(mempool.pendingNonce(from)),
      to: system.bridgeAddress as Address,
      data,
      gas: params.txGasLimit,
      maxFeePerGas: baseFee * 2n + priority,
      maxPriorityFeePerGas: priority,
    });
    try {
      const hash = await mempool.submit(Buffer.from(raw.slice(2), 'hex'));
      this.sent.set(key, hash);
      this.log.debug({ what: key, tx: `0x${hash.toString('hex')}` }, 'bridge transaction sent');
    } catch (err) {
      this.log.warn({ err, what: key }, 'the transaction pool refused a bridge transaction');
    }
  }

  /**
   * The signatures in the contract's current order (v = 0 where a member did not sign), or
   * undefined when the members that signed do not hold more than 2/3 of its power.
   */
  private alignedSignatures(signatures: readonly { validator: string; signature: Hex }[]): { v: number; r: Hex; s: Hex }[] | undefined {
    const ext = this.external;
    if (!ext) return undefined;
    const bySigner = new Map(signatures.map((s) => [s.validator, s.signature]));
    const signers = ext.validators.filter((v) => bySigner.has(v));
    if (!passesThreshold(signedPower({ nonce: ext.valsetNonce, validators: ext.validators, powers: ext.powers }, signers), ext.powers.reduce((a, b) => a + b, 0n))) return undefined;
    return ext.validators.map((v) => {
      const s = bySigner.get(v);
      if (!s) return { v: 0, r: `0x${'00'.repeat(32)}` as Hex, s: `0x${'00'.repeat(32)}` as Hex };
      const p = parseSignature(s);
      return { v: Number(p.v ?? BigInt(27 + (p.yParity ?? 0))), r: p.r, s: p.s };
    });
  }

  /** Sends a contract call from the operator key on the external chain, once per `key` every 30 s. */
  private async relayCall(key: string, config: BridgeConfig, call: { functionName: 'withdraw' | 'updateValset'; args: readonly unknown[] }): Promise<void> {
    const last = this.relayed.get(key);
    if (last !== undefined && Date.now() - last < 30_000) return;
    const client = this.client!;
    const wallet = createWalletClient({ account: this.account!, chain: client.chain, transport: http(this.options.rpcUrl, { retryCount: 0, timeout: 10_000 }) });
    this.relayed.set(key, Date.now());
    try {
      const tx = await wallet.writeContract({ address: getAddress(config.contract), abi: svcBridgeAbi, functionName: call.functionName, args: call.args as never, chain: client.chain });
      this.log.info({ what: key, tx }, 'relayed to the external contract');
    } catch (err) {
      this.log.warn({ err, what: key }, 'relaying to the external contract failed; it will be tried again');
    }
  }

  /** Relays a ready withdrawal with the signatures the contract's current set holds, when they carry its threshold. */
  private async relay(config: BridgeConfig, client: PublicClient, w: WithdrawalRecord): Promise<void> {
    if (await client.readContract({ address: getAddress(config.contract), abi: svcBridgeAbi, functionName: 'released', args: [BigInt(w.id)] })) return;
    const sigs = this.alignedSignatures(w.signatures);
    if (!sigs) return;
    await this.relayCall(`withdrawal:${w.id}`, config, { functionName: 'withdraw', args: [BigInt(w.id), getAddress(w.token), getAddress(w.recipient), w.amount, sigs] });
  }

  /** Relays a ready set with the current set's signatures. */
  private async relayValset(config: BridgeConfig, pending: Readonly<PendingValset>): Promise<void> {
    const sigs = this.alignedSignatures(pending.signatures);
    if (!sigs) return;
    await this.relayCall(`valset:${pending.nonce}`, config, { functionName: 'updateValset', args: [pending.validators.map((v) => getAddress(v)), pending.powers, BigInt(pending.nonce), sigs] });
  }

  /**
   * svc_getBridgeStatus: the module's records, with `active` false when the chain has no bridge,
   * or when this node reads the contract and finds its set behind (or other than) the module's, or
   * holding less ETH than svc owes back.
   */
  status(): BridgeStatus {
    const s = this.options.app.bridge.status();
    if (!s.active || !this.options.rpcUrl) return s;
    const ext = this.external;
    const valset = this.options.app.bridge.valset;
    if (!ext || this.externalError !== undefined || !valset) return { ...s, active: false };
    const sameSet = ext.valsetNonce === valset.nonce && ext.validators.join() === valset.validators.join() && ext.powers.join() === valset.powers.join();
    const solvent = ext.lockedEth >= BigInt(s.totalValueLocked);
    return { ...s, active: sameSet && solvent };
  }
}
