// Locates the repository root from the compiled (dist/...) or source location of a file.
import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** The nearest ancestor of this file that holds the project's package.json. */
export function repoRoot(): string {
  let dir = path.dirname(fileURLToPath(import.meta.url));
  for (;;) {
    if (existsSync(path.join(dir, 'package.json')) && existsSync(path.join(dir, 'test'))) return dir;
    const parent = path.dirname(dir);
    if (parent === dir) throw new Error('repository root not found above ' + fileURLToPath(import.meta.url));
    dir = parent;
  }
}
