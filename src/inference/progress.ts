// A one-line progress bar for long transfers: redrawn in place on a terminal, a start and an end
// line otherwise (logs and CI stay readable).
import type { WriteStream } from 'node:tty';

export interface ProgressSink {
  start(label: string, total: number | null, already: number): void;
  advance(received: number): void;
  done(): void;
}

const WIDTH = 30;

function mb(bytes: number): string {
  return `${(bytes / 1e6).toFixed(1)} MB`;
}

/** A progress bar on `stream` (stderr by default). */
export function progressBar(stream: NodeJS.WriteStream | WriteStream = process.stderr): ProgressSink {
  let label = '';
  let total: number | null = null;
  let received = 0;
  let startedAt = 0;
  let lastDraw = 0;
  const tty = Boolean(stream.isTTY);
  const draw = (final: boolean) => {
    const secs = Math.max((Date.now() - startedAt) / 1000, 1e-3);
    const rate = `${mb(received / secs)}/s`;
    if (total && total > 0) {
      const frac = Math.min(received / total, 1);
      const filled = Math.round(frac * WIDTH);
      const bar = '#'.repeat(filled) + '-'.repeat(WIDTH - filled);
      stream.write(`\r${label} [${bar}] ${(frac * 100).toFixed(0).padStart(3)}% ${mb(received)}/${mb(total)} ${rate}${final ? '\n' : ''}`);
    } else {
      stream.write(`\r${label} ${mb(received)} ${rate}${final ? '\n' : ''}`);
    }
  };
  return {
    start(l, t, already) {
      label = l;
      total = t;
      received = already;
      startedAt = Date.now();
      if (tty) draw(false);
      else stream.write(`${label}: downloading${already > 0 ? ` (resuming at ${mb(already)})` : ''}${t ? `, ${mb(t)}` : ''}\n`);
    },
    advance(r) {
      received = r;
      if (tty && Date.now() - lastDraw > 100) {
        lastDraw = Date.now();
        draw(false);
      }
    },
    done() {
      if (tty) draw(true);
      else stream.write(`${label}: done, ${mb(received)}\n`);
    },
  };
}

/** A sink that shows nothing (tests, --quiet). */
export const silentProgress: ProgressSink = { start() {}, advance() {}, done() {} };
