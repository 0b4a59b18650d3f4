// The package's version, read from package.json so that it has one source (the CLI, JSON-RPC and the explorer report it).
import { readFileSync, existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

let cached: string | undefined;

/** Version of the svc-node package (from src or dist/src alike). */
export function packageVersion(): string {
  if (cached) return cached;
  let dir = path.dirname(fileURLToPath(import.meta.url));
  for (;;) {
    const file = path.join(dir, 'package.json');
    if (existsSync(file)) {
      const pkg = JSON.parse(readFileSync(file, 'utf8')) as { name?: string; version?: string };
      if (pkg.name === 'svc-node' && pkg.version) return (cached = pkg.version);
    }
    const parent = path.dirname(dir);
    if (parent === dir) throw new Error('package.json of svc-node not found above ' + fileURLToPath(import.meta.url));
    dir = parent;
  }
}
