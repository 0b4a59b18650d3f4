// A client of the CometBFT process's RPC (JSON-RPC 2.0 over HTTP, its `rpc.laddr`): what the
// node reads of the network (status, peers, the mempool) and how it hands a transaction to the
// network's mempool (broadcast_tx_sync, answered after CheckTx).
import http from 'node:http';
import { SvcError } from '../../errors.js';

/** Raised when the CometBFT process cannot be reached or answers with an error. */
export class CometRpcError extends SvcError {
  override readonly name = 'CometRpcError';
  override readonly code = 'COMETBFT_RPC';
  constructor(
    message: string,
    /** CometBFT's error data (its reason), when it answered with an error. */
    readonly data?: string,
  ) {
    super(message, data === undefined ? {} : { details: data });
  }
}

export interface CometStatus {
  nodeId: string;
  moniker: string;
  network: string;
  latestBlockHeight: number;
  latestBlockTimeMs: number;
  catchingUp: boolean;
  /** The validator key of this node (hex of its 20-byte address) and its voting power (0 when not a validator). */
  validatorAddress: string;
  votingPower: bigint;
}

export interface CometPeer {
  nodeId: string;
  moniker: string;
  remoteIp: string;
  isOutbound: boolean;
}

export interface CheckTxAnswer {
  code: number;
  log: string;
  /** sha256 of the transaction, as CometBFT names it. */
  hash: string;
}

interface RpcEnvelope<T> {
  result?: T;
  error?: { code: number; message: string; data?: string };
}

export class CometClient {
  private id = 0;
  /** Kept-alive connections for the hand-off of transactions (fetch costs far more per request). */
  private readonly agent = new http.Agent({ keepAlive: true, maxSockets: 4 });

  constructor(
    /** http://host:port of the CometBFT RPC. */
    readonly url: string,
    /** Requests one JSON-RPC batch may hold (CometBFT's rpc.max_request_batch_size). */
    private readonly maxBatch = 10,
    private readonly timeoutMs = 10_000,
  ) {}

  private async call<T>(method: string, params: Record<string, unknown> = {}): Promise<T> {
    let res: Response;
    try {
      res = await fetch(this.url, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ jsonrpc: '2.0', id: ++this.id, method, params }),
        signal: AbortSignal.timeout(this.timeoutMs),
      });
    } catch (err) {
      throw new CometRpcError(`CometBFT RPC at ${this.url} is unreachable: ${(err as Error).message}`);
    }
    const body = (await res.json().catch(() => ({}))) as RpcEnvelope<T>;
    if (body.error) throw new CometRpcError(`CometBFT ${method}: ${body.error.message}`, body.error.data);
    if (body.result === undefined) throw new CometRpcError(`CometBFT ${method}: HTTP ${res.status} without a result`);
    return body.result;
  }

  async status(): Promise<CometStatus> {
    const r = await this.call<{
      node_info: { id: string; moniker: string; network: string };
      sync_info: { latest_block_height: string; latest_block_time: string; catching_up: boolean };
      validator_info: { address: string; voting_power: string };
    }>('status');
    return {
      nodeId: r.node_info.id,
      moniker: r.node_info.moniker,
      network: r.node_info.network,
      latestBlockHeight: Number(r.sync_info.latest_block_height),
      latestBlockTimeMs: Date.parse(r.sync_info.latest_block_time),
      catchingUp: r.sync_info.catching_up,
      validatorAddress: r.validator_info.address.toLowerCase(),
      votingPower: BigInt(r.validator_info.voting_power),
    };
  }

  async peers(): Promise<CometPeer[]> {
    const r = await this.call<{ peers: { node_info: { id: string; moniker: string }; remote_ip: string; is_outbound: boolean }[] }>('net_info');
    return r.peers.map((p) => ({ nodeId: p.node_info.id, moniker: p.node_info.moniker, remoteIp: p.remote_ip, isOutbound: p.is_outbound }));
  }

  /**
   * The heights of the blocks this node's peers have committed, from the round state each peer's
   * consensus reactor announces (dump_consensus_state: a peer working on height h has committed
   * h - 1). Announced while this node block-syncs too, so it is the network's best height as the
   * peers tell it.
   */
  async peerHeights(): Promise<number[]> {
    const r = await this.call<{ peers?: { peer_state?: { round_state?: { height?: string | number } } }[] | null }>('dump_consensus_state');
    const heights: number[] = [];
    for (const p of r.peers ?? []) {
      const h = Number(p.peer_state?.round_state?.height ?? 0);
      // Height 0: the peer has announced nothing yet.
      if (Number.isSafeInteger(h) && h > 0) heights.push(h - 1);
    }
    return heights;
  }

  /** Hands a transaction to the network's mempool; answered with the app's CheckTx verdict. */
  async broadcastTxSync(tx: Buffer): Promise<CheckTxAnswer> {
    const r = await this.call<{ code: number; log: string; hash: string }>('broadcast_tx_sync', { tx: tx.toString('base64') });
    return { code: r.code, log: r.log, hash: r.hash.toLowerCase() };
  }

  /**
   * Hands transactions to the network's mempool without waiting for CheckTx (broadcast_tx_async),
   * in one JSON-RPC batch; resolves with CometBFT's refusals (its cache, a full mempool), by index.
   */
  async broadcastTxsAsync(txs: readonly Buffer[]): Promise<Map<number, string>> {
    const refused = new Map<number, string>();
    const parts: Promise<void>[] = [];
    for (let offset = 0; offset < txs.length; offset += this.maxBatch) {
      const part = txs.slice(offset, offset + this.maxBatch);
      parts.push(this.broadcastBatch(part).then((r) => void r.forEach((reason, i) => refused.set(offset + i, reason))));
    }
    await Promise.all(parts);
    return refused;
  }

  private async broadcastBatch(txs: readonly Buffer[]): Promise<Map<number, string>> {
    const first = this.id + 1;
    this.id += txs.length;
    let res: { status: number; text: string };
    try {
      res = await this.post(JSON.stringify(txs.map((tx, i) => ({ jsonrpc: '2.0', id: first + i, method: 'broadcast_tx_async', params: { tx: tx.toString('base64') } }))));
    } catch (err) {
      throw new CometRpcError(`CometBFT RPC at ${this.url} is unreachable: ${(err as Error).message}`);
    }
    let body: (RpcEnvelope<unknown> & { id: number })[] | (RpcEnvelope<unknown> & { id?: number }) | null;
    try {
      body = JSON.parse(res.text) as typeof body;
    } catch {
      body = null;
    }
    // CometBFT answers a batch of one with a bare answer, not a list of one.
    if (!Array.isArray(body) && txs.length === 1 && body !== null && body.id === first && (body.result !== undefined || body.error !== undefined)) {
      body = [{ ...body, id: first }];
    }
    // A refused batch (too many requests, too large) is one error for all of it.
    if (!Array.isArray(body)) throw new CometRpcError(`CometBFT refused a batch of ${txs.length} broadcasts: ${(body as RpcEnvelope<unknown> | null)?.error?.data ?? (body as RpcEnvelope<unknown> | null)?.error?.message ?? `HTTP ${res.status}`}`);
    const refused = new Map<number, string>();
    for (const answer of body) {
      if (answer.error) refused.set(answer.id - first, answer.error.data ?? answer.error.message);
    }
    return refused;
  }

  /** POSTs a JSON body over the kept-alive connections; resolves with the status and the text of the answer. */
  private post(body: string): Promise<{ status: number; text: string }> {
    const url = new URL(this.url);
    return new Promise((resolve, reject) => {
      const req = http.request(
        {
          host: url.hostname,
          port: url.port,
          path: url.pathname || '/',
          method: 'POST',
          agent: this.agent,
          headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) },
          timeout: this.timeoutMs,
        },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('end', () => resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8') }));
          res.on('error', reject);
        },
      );
      req.on('timeout', () => req.destroy(new Error(`no answer within ${this.timeoutMs} ms`)));
      req.on('error', reject);
      req.end(body);
    });
  }
}
