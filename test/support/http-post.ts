// POST over node:http, able to stream a large body and stop as soon as the server answers early (e.g. 413).
import http from 'node:http';

export interface HttpAnswer {
  status: number;
  headers: http.IncomingHttpHeaders;
  text: string;
}

export interface HttpPostOptions {
  headers?: Record<string, string>;
  /** Send the body without a content-length (chunked transfer encoding). */
  chunked?: boolean;
  /** Write the body in pieces of this size, stopping once a response has arrived. */
  pieceBytes?: number;
  /** Wait this long for an early answer after the headers and before the end of the body. */
  settleMs?: number;
}

/**
 * Send `body` to `url` and resolve with the response. The body goes out piece by piece and stops
 * when the server has answered, so that a refusal sent before the body was read is seen even if
 * the server then closes the connection (a reset would otherwise discard the answer).
 */
export function httpPost(url: string, body: string | Buffer, options: HttpPostOptions = {}): Promise<HttpAnswer> {
  return new Promise((resolve, reject) => {
    const payload = typeof body === 'string' ? Buffer.from(body) : body;
    const headers: Record<string, string> = { 'content-type': 'application/json', ...options.headers };
    if (!options.chunked) headers['content-length'] = String(payload.length);
    let answered = false;
    let settled = false;
    const finish = (fn: () => void) => {
      if (settled) return;
      settled = true;
      fn();
    };
    const req = http.request(url, { method: 'POST', headers, agent: false }, (res) => {
      answered = true;
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        finish(() => resolve({ status: res.statusCode ?? 0, headers: res.headers, text: Buffer.concat(chunks).toString('utf8') }));
        // The rest of a refused body is never sent; drop the connection.
        req.destroy();
      });
      res.on('error', (err) => finish(() => reject(err)));
    });
    req.on('error', (err) => {
      if (!answered) finish(() => reject(err));
    });
    const piece = options.pieceBytes ?? 64 * 1024;
    const settleMs = options.settleMs ?? 100;
    const writeFrom = (offset: number): void => {
      if (answered || req.destroyed) return;
      if (offset >= payload.length) {
        setTimeout(() => {
          if (!answered && !req.destroyed) req.end();
        }, settleMs);
        return;
      }
      const end = Math.min(offset + piece, payload.length);
      const ok = req.write(payload.subarray(offset, end));
      // Yield between pieces so that an early response is read before the rest is written.
      if (ok) setImmediate(() => writeFrom(end));
      else req.once('drain', () => writeFrom(end));
    };
    req.flushHeaders();
    // A server that refuses on the announced length answers now, before a byte of the body is sent.
    setTimeout(() => writeFrom(0), settleMs);
  });
}
