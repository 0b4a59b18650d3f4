// A lean JSON-RPC client over node:http with a keep-alive agent: the load generator's only transport.
import http from 'node:http';

export interface RawAnswer {
  status: number;
  text: string;
}

/** POSTs pre-serialised bodies to one JSON-RPC endpoint over at most `maxSockets` kept-alive connections. */
export class RpcHttpClient {
  private readonly agent: http.Agent;
  private readonly target: URL;
  private nextId = 1;

  constructor(
    readonly url: string,
    maxSockets: number,
  ) {
    this.target = new URL(url);
    this.agent = new http.Agent({ keepAlive: true, maxSockets, maxFreeSockets: maxSockets });
  }

  /** POST a body and read the whole answer. */
  post(body: Buffer): Promise<RawAnswer> {
    return new Promise((resolve, reject) => {
      const req = http.request(
        {
          agent: this.agent,
          host: this.target.hostname,
          port: this.target.port,
          path: this.target.pathname,
          method: 'POST',
          headers: { 'content-type': 'application/json', 'content-length': body.length },
        },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('end', () => resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8') }));
          res.on('error', reject);
        },
      );
      req.on('error', reject);
      req.end(body);
    });
  }

  /** One call; returns the result or throws with the node's error message. */
  async call<T = unknown>(method: string, params: unknown[] = []): Promise<T> {
    const answer = await this.post(Buffer.from(JSON.stringify({ jsonrpc: '2.0', id: this.nextId++, method, params })));
    const json = JSON.parse(answer.text) as { result?: T; error?: { code: number; message: string } };
    if (json.error) throw new Error(`${method}: ${json.error.code} ${json.error.message}`);
    return json.result as T;
  }

  /** A batch of calls; returns each item's result or error, in request order. */
  async batch(calls: { method: string; params: unknown[] }[]): Promise<{ result?: unknown; error?: { code: number; message: string } }[]> {
    const first = this.nextId;
    this.nextId += calls.length;
    const body = JSON.stringify(calls.map((c, i) => ({ jsonrpc: '2.0', id: first + i, method: c.method, params: c.params })));
    const answer = await this.post(Buffer.from(body));
    const json = JSON.parse(answer.text) as { id: number; result?: unknown; error?: { code: number; message: string } }[] | { error?: { message: string } };
    if (!Array.isArray(json)) throw new Error(`batch refused: ${json.error?.message ?? answer.text.slice(0, 200)}`);
    const byId = new Map(json.map((r) => [r.id, r]));
    return calls.map((_, i) => byId.get(first + i) ?? { error: { code: 0, message: 'missing from the batch answer' } });
  }

  close(): void {
    this.agent.destroy();
  }
}
