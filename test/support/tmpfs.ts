// A small tmpfs to fill up under a running node: the full-disk tests mount one as its data dir.
import { execFileSync } from 'node:child_process';
import { closeSync, mkdtempSync, openSync, rmdirSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

export const MIB = 1024 * 1024;

/** Mounts a tmpfs of `sizeMiB` on a fresh directory; the reason when this machine does not allow it. */
export function mountTmpfs(sizeMiB: number, prefix = 'svc-disk-full-'): { dir: string } | { skip: string } {
  const dir = mkdtempSync(path.join(tmpdir(), prefix));
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${sizeMiB}m`, 'tmpfs', dir], { stdio: 'pipe' });
    return { dir };
  } catch (err) {
    rmdirSync(dir);
    const stderr = (err as { stderr?: Buffer }).stderr?.toString().trim().split('\n')[0];
    const why = `mounting a tmpfs is not permitted here (${stderr || (err as Error).message.split('\n')[0]})`;
    // CI must run it: a runner that cannot mount is a broken runner, not a pass.
    if (process.env['CI'] === 'true') throw new Error(`the full-disk test needs root to mount a tmpfs: ${why}`);
    return { skip: why };
  }
}

/** Unmounts what mountTmpfs mounted and removes its directory. */
export function unmountTmpfs(dir: string): void {
  execFileSync('umount', [dir]);
  rmdirSync(dir);
}

/** Writes `file` in 1 MiB chunks (then 4 KiB ones) until the disk is full, or `limitBytes` when given. */
export function fill(file: string, limitBytes = Infinity): number {
  const fd = openSync(file, 'a');
  let written = 0;
  try {
    for (const size of [MIB, 4096]) {
      const chunk = Buffer.alloc(size, 0x5a);
      while (written + size <= limitBytes) {
        try {
          writeSync(fd, chunk);
        } catch (err) {
          if ((err as NodeJS.ErrnoException).code !== 'ENOSPC') throw err;
          break;
        }
        written += size;
      }
    }
  } finally {
    closeSync(fd);
  }
  return written;
}
