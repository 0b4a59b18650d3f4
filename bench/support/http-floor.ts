// The floor of node:http on this machine: a server that reads and parses each JSON body and sends a
// fixed answer, doing no JSON-RPC work. Run as a child process so its CPU is measured on its own.
import http from 'node:http';
import { fileURLToPath } from 'node:url';
import { spawn } from 'node:child_process';

const ANSWER = '{"jsonrpc":"2.0","id":1,"result":"0x1"}';

function serve(): void {
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      JSON.parse(Buffer.concat(chunks).toString('utf8'));
      res.writeHead(200, { 'Content-Type': 'application/json', 'Content-Length': ANSWER.length });
      res.end(ANSWER);
    });
  });
  server.keepAliveTimeout = 60_000;
  server.listen(0, '127.0.0.1', () => {
    const address = server.address();
    if (address && typeof address === 'object') process.stdout.write(`${address.port}\n`);
  });
}

/** Starts the floor server in a child process; resolves its URL, pid and a stop function. */
export function startHttpFloor(): Promise<{ url: string; pid: number; stop: () => void }> {
  const child = spawn(process.execPath, [fileURLToPath(import.meta.url), '--serve'], { stdio: ['ignore', 'pipe', 'inherit'] });
  return new Promise((resolve, reject) => {
    child.once('error', reject);
    child.stdout!.once('data', (d: Buffer) => {
      resolve({ url: `http://127.0.0.1:${d.toString().trim()}/`, pid: child.pid!, stop: () => child.kill('SIGTERM') });
    });
  });
}

if (process.argv.includes('--serve') && process.argv[1] === fileURLToPath(import.meta.url)) serve();
