// The headers every answer of every port carries (docs/rpc.md, "Response headers"): a browser must
// never guess a body's type (an error that echoes a client's input stays JSON, never HTML or a
// script), and no URL of the node is handed to another site as a referrer. The native JSON-RPC
// port adds the same pair itself (crates/svc-rpc-http, server.rs: EDGE_HEADERS).
import http from 'node:http';

export const EDGE_HEADERS: Readonly<Record<string, string>> = {
  'X-Content-Type-Options': 'nosniff',
  // The explorer's page links and loads only its own origin, so a referrer would tell nothing useful
  // and could carry the address or transaction a user looked up (docs/explorer.md, "Web page").
  'Referrer-Policy': 'no-referrer',
};

/**
 * A node:http response born with the edge headers (http.createServer's `ServerResponse` option), so
 * that every answer of the server has them: koa's, socket.io's polling and refusals, plain handlers'.
 * A handler may still replace them; writeHead merges its own headers with these.
 */
export class EdgeServerResponse<Request extends http.IncomingMessage = http.IncomingMessage> extends http.ServerResponse<Request> {
  constructor(req: Request, options?: unknown) {
    // node:http passes options (highWaterMark, ...) that @types/node does not declare.
    super(...([req, options] as unknown as [Request]));
    for (const [name, value] of Object.entries(EDGE_HEADERS)) this.setHeader(name, value);
  }
}

/** Adds the edge headers to a header list a library writes by hand (ws's upgrade answer) unless present. */
export function addEdgeHeaderLines(lines: string[]): void {
  for (const [name, value] of Object.entries(EDGE_HEADERS)) {
    const prefix = `${name.toLowerCase()}:`;
    if (!lines.some((l) => l.toLowerCase().startsWith(prefix))) lines.push(`${name}: ${value}`);
  }
}
