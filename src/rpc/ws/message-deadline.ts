// The read timeout of a WebSocket connection: a message (every frame of it, fragments included) must
// arrive within the read timeout of its first byte. `ws` waits for the rest of a frame without a
// word, and a client that stops in the middle of a fragmented message can still answer pings, so
// neither maxPayload nor the heartbeat ends such a connection soon: this follows the frame
// boundaries of what the client sends (RFC 6455, section 5.2), without keeping any payload.
import type { Duplex } from 'node:stream';

/** Where a client's byte stream stands: between messages, or inside a frame or a fragmented message. */
export class FrameBoundaries {
  private readonly header = Buffer.alloc(14);
  private headerBytes = 0;
  /** Header length once its first two bytes are known (2 + extended length + mask key). */
  private headerLength = 2;
  private payloadLeft = 0;
  /** A data frame without FIN was received: the message goes on in continuation frames. */
  private fragmented = false;

  /** Whether the stream stands between two messages. */
  get atBoundary(): boolean {
    return this.headerBytes === 0 && this.payloadLeft === 0 && !this.fragmented;
  }

  /** Follows `chunk`; returns whether a message began in it and is still incomplete at its end. */
  feed(chunk: Buffer): boolean {
    let startedHere = false;
    let i = 0;
    while (i < chunk.length) {
      if (this.atBoundary) startedHere = true;
      if (this.payloadLeft > 0) {
        const take = Math.min(this.payloadLeft, chunk.length - i);
        this.payloadLeft -= take;
        i += take;
        continue;
      }
      this.header[this.headerBytes++] = chunk[i++]!;
      if (this.headerBytes === 2) {
        const length7 = this.header[1]! & 0x7f;
        const masked = (this.header[1]! & 0x80) !== 0;
        this.headerLength = 2 + (length7 === 126 ? 2 : length7 === 127 ? 8 : 0) + (masked ? 4 : 0);
      }
      if (this.headerBytes >= 2 && this.headerBytes === this.headerLength) this.frameStarts();
    }
    return startedHere && !this.atBoundary;
  }

  /** A frame header is complete: its payload follows. */
  private frameStarts(): void {
    const length7 = this.header[1]! & 0x7f;
    // Lengths past 2^53 are not representable, and ws closes the connection for any over maxPayload anyway.
    this.payloadLeft =
      length7 === 126 ? this.header.readUInt16BE(2) : length7 === 127 ? Number(this.header.readBigUInt64BE(2)) : length7;
    const fin = (this.header[0]! & 0x80) !== 0;
    const opcode = this.header[0]! & 0x0f;
    // Control frames (opcode 8 and up) may come between fragments and do not end a message.
    if (opcode < 8) this.fragmented = !fin;
    this.headerBytes = 0;
    this.headerLength = 2;
  }
}

/**
 * Calls `onTimeout` when a message from the client on `socket` is still incomplete `timeoutMs` after
 * its first byte arrived. Time while the server itself does not read the socket (paused for
 * backpressure) does not count. Attach before the socket's data flows (in ws's upgrade callback).
 */
export function enforceMessageDeadline(socket: Duplex, timeoutMs: number, onTimeout: () => void): void {
  const frames = new FrameBoundaries();
  let timer: NodeJS.Timeout | undefined;
  let startedAt = 0;
  const expire = (): void => {
    timer = undefined;
    if (frames.atBoundary || socket.destroyed) return;
    const left = timeoutMs - (performance.now() - startedAt);
    if (socket.isPaused()) {
      // Our pause, not the client's stall: count from when reading resumes.
      startedAt = performance.now();
      arm(timeoutMs);
    } else if (left > 0) arm(left);
    else onTimeout();
  };
  const arm = (ms: number): void => {
    timer = setTimeout(expire, ms);
    timer.unref();
  };
  socket.on('data', (chunk: Buffer) => {
    if (frames.feed(chunk)) startedAt = performance.now();
    if (frames.atBoundary) {
      clearTimeout(timer);
      timer = undefined;
    } else if (timer === undefined) arm(timeoutMs - (performance.now() - startedAt));
  });
  socket.once('close', () => clearTimeout(timer));
}
