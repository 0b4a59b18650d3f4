// A pino logger whose JSON lines are kept, so that a test can read what an in-process node said.
import { Writable } from 'node:stream';
import pino, { type Logger } from 'pino';

/** One logged line: pino's level and message, and the fields logged with them. */
export type LogLine = { level: number; msg: string; [field: string]: unknown };

/** A logger at `level` and the lines it has written so far. */
export function capturingLogger(level: pino.Level = 'debug'): { log: Logger; lines: () => LogLine[] } {
  const chunks: string[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _enc, done) {
      chunks.push(chunk.toString());
      done();
    },
  });
  const log = pino({ level }, stream) as unknown as Logger;
  return {
    log,
    lines: () =>
      chunks
        .join('')
        .split('\n')
        .filter((l) => l.trim() !== '')
        .map((l) => JSON.parse(l) as LogLine),
  };
}
