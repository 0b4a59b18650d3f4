// The node's data dir holds the chain database and secrets (the explorer's JWT secret, the admin
// token): only the node's user may enter it, and secret files are readable by that user only.
import { chmodSync, mkdirSync, renameSync, statSync, writeFileSync } from 'node:fs';

/** Owner only: rwx for the data dir, rw for secret files. */
export const PRIVATE_DIR_MODE = 0o700;
export const PRIVATE_FILE_MODE = 0o600;

/** Creates the data dir if needed and narrows its mode to 0700 (a dir made by an older node was 0755). */
export function secureDataDir(dir: string): void {
  mkdirSync(dir, { recursive: true, mode: PRIVATE_DIR_MODE });
  if ((statSync(dir).mode & 0o777) !== PRIVATE_DIR_MODE) chmodSync(dir, PRIVATE_DIR_MODE);
}

/** Narrows an existing secret file to 0600. */
export function securePrivateFile(file: string): void {
  if ((statSync(file).mode & 0o777) !== PRIVATE_FILE_MODE) chmodSync(file, PRIVATE_FILE_MODE);
}

/** Writes `text` to `file` readable by the owner only, whole or not at all (a temp file renamed over it). */
export function writePrivateFile(file: string, text: string): void {
  const temp = `${file}.tmp-${process.pid}`;
  writeFileSync(temp, text, { mode: PRIVATE_FILE_MODE });
  // writeFileSync's mode is filtered by the umask and ignored for an existing file; chmod is neither.
  chmodSync(temp, PRIVATE_FILE_MODE);
  renameSync(temp, file);
}
