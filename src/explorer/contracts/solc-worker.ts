// A worker thread that runs solc-js, so that seconds of compiling never stall the node's event loop
// (block production, RPC). Messages: {id, kind: 'version'} and {id, kind: 'compile', input}.
import { createRequire } from 'node:module';
import { parentPort } from 'node:worker_threads';

interface SolcJs {
  version(): string;
  compile(input: string): string;
}

export type WorkerRequest = { id: number; kind: 'version' } | { id: number; kind: 'compile'; input: string };
export type WorkerReply = { id: number; ok: true; result: string | null } | { id: number; ok: false; error: string };

const require = createRequire(import.meta.url);
let solc: SolcJs | null | undefined;

/** solc-js, loaded on first use; null when the package is not installed. */
function load(): SolcJs | null {
  if (solc === undefined) {
    try {
      solc = require('solc') as SolcJs;
    } catch {
      solc = null;
    }
  }
  return solc;
}

parentPort?.on('message', (req: WorkerRequest) => {
  let reply: WorkerReply;
  try {
    const compiler = load();
    if (req.kind === 'version') reply = { id: req.id, ok: true, result: compiler ? compiler.version() : null };
    else if (!compiler) reply = { id: req.id, ok: false, error: 'no Solidity compiler is installed' };
    else reply = { id: req.id, ok: true, result: compiler.compile(req.input) };
  } catch (err) {
    reply = { id: req.id, ok: false, error: err instanceof Error ? err.message : String(err) };
  }
  parentPort?.postMessage(reply);
});
