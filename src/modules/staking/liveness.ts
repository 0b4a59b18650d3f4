// Liveness (Cosmos x/slashing): a rolling bitmap of missed blocks over the last signedBlocksWindow
// blocks a validator was active for; missing more than the window allows is downtime.
import type { StakingParams } from '../../params.js';
import type { SigningWindow } from './types.js';

/** A window with nothing counted yet. */
export function emptyWindow(size: number): SigningWindow {
  return { bitmap: new Uint8Array(Math.ceil(size / 8)), index: 0, missed: 0 };
}

/** Count one block in the window, overwriting the block `size` blocks back. */
export function countBlock(window: SigningWindow, size: number, missed: boolean): void {
  const pos = window.index % size;
  const byte = pos >> 3;
  const bit = 1 << (pos & 7);
  const wasMissed = (window.bitmap[byte]! & bit) !== 0;
  if (missed && !wasMissed) {
    window.bitmap[byte] = window.bitmap[byte]! | bit;
    window.missed++;
  } else if (!missed && wasMissed) {
    window.bitmap[byte] = window.bitmap[byte]! & ~bit;
    window.missed--;
  }
  window.index++;
}

/** Blocks a validator must sign per window: window * minSignedPerWindowBps / 10000, rounded half up (Cosmos RoundInt64). */
export function minSignedPerWindow(params: Pick<StakingParams, 'signedBlocksWindow' | 'minSignedPerWindowBps'>): number {
  return Math.floor((params.signedBlocksWindow * params.minSignedPerWindowBps + 5_000) / 10_000);
}

/** Downtime: a full window has been counted and more blocks were missed than it allows. */
export function isDowntime(window: SigningWindow, params: Pick<StakingParams, 'signedBlocksWindow' | 'minSignedPerWindowBps'>): boolean {
  const maxMissed = params.signedBlocksWindow - minSignedPerWindow(params);
  return window.index >= params.signedBlocksWindow && window.missed > maxMissed;
}

/** Signed share of the counted blocks of the window in basis points; 10000 when none are counted. */
export function uptimeBps(window: SigningWindow, size: number): number {
  const counted = Math.min(window.index, size);
  if (counted === 0) return 10_000;
  return Math.floor(((counted - window.missed) * 10_000) / counted);
}
