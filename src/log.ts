// Structured logging: one pino logger per node, JSON lines on stdout.
import { once } from 'node:events';
import { destination as pinoDestination, pino, type DestinationStream, type Logger } from 'pino';
import { logging } from './params.js';

/** Levels accepted by --log-level, most to least verbose, then off. */
export const LOG_LEVELS = ['trace', 'debug', 'info', 'warn', 'error', 'fatal', 'silent'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

type StdoutStream = ReturnType<typeof pinoDestination>;

/** The stdout stream behind each logger made by createLogger, for an orderly close. */
const streams = new WeakMap<Logger, StdoutStream>();

/** Whether a string names a log level. */
export function isLogLevel(level: string): level is LogLevel {
  return (LOG_LEVELS as readonly string[]).includes(level);
}

/**
 * The node's root logger; modules take children of it (`log.child({ module: 'solo' })`).
 * Without a destination it writes to stdout asynchronously with a bounded buffer, so a reader
 * that stops draining stdout costs log lines, never block production.
 */
export function createLogger(level: LogLevel, destination?: DestinationStream): Logger {
  const options = { level, base: { pid: process.pid } };
  if (destination) return pino(options, destination);
  const stream = pinoDestination({ dest: 1, sync: false, maxLength: logging.maxBufferedBytes });
  const log = pino(options, stream);
  streams.set(log, stream);
  return log;
}

/** Flush and close a logger's stdout stream, dropping what stdout has not taken within the timeout. */
export async function closeLogger(log: Logger, timeoutMs: number = logging.closeTimeoutMs): Promise<void> {
  const stream = streams.get(log);
  if (!stream) return;
  streams.delete(log);
  const closed = once(stream, 'close').then(() => true);
  const late = new Promise<boolean>((resolve) => setTimeout(resolve, timeoutMs, false).unref());
  stream.end();
  if (!(await Promise.race([closed, late]))) stream.destroy();
}

/** Drop a logger's unwritten lines at once (an exit that cannot wait for stdout). */
export function abandonLogger(log: Logger): void {
  const stream = streams.get(log);
  if (!stream) return;
  streams.delete(log);
  stream.destroy();
}
