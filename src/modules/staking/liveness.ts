// Liveness (Cosmos x/slashing): a rolling bitmap of missed blocks over the last signedBlocksWindow
// blocks a validator was active for; missing more than the window allows is downtime.
import type { StakingParams } from '../../params.js';
import type { Address, CommitVote, SigningWindow } from './types.js';

/** A window with nothing counted yet. */
export function emptyWindow(size: number): SigningWindow {
  return { bitmap: new Uint8Array(Math.ceil(size / 8)), index: 0, missed: 0, size, judgedFrom: 0 };
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

/**
 * Whether a block charges an active validator a miss; undefined when the block does not count it
 * at all. With CometBFT's decided last commit (`commit`), as Cosmos x/slashing counts it: only the
 * validators the commit lists are counted, and only those it lists absent missed (a nil vote was
 * cast: signed). A validator outside CometBFT's set for that height (block 1, which has no last
 * commit; a validator that has just re-entered the set) is not counted. Without a commit (the solo
 * driver), every active validator is counted, missed unless among `signers`.
 */
export function missOf(validator: Address, signers: ReadonlySet<Address>, commit: ReadonlyMap<Address, CommitVote['flag']> | undefined): boolean | undefined {
  if (!commit) return !signers.has(validator);
  const flag = commit.get(validator);
  return flag === undefined ? undefined : flag === 'absent';
}

/** Blocks a validator must sign per window: window * minSignedPerWindowBps / 10000, rounded half up (Cosmos RoundInt64). */
export function minSignedPerWindow(params: Pick<StakingParams, 'signedBlocksWindow' | 'minSignedPerWindowBps'>): number {
  return Math.floor((params.signedBlocksWindow * params.minSignedPerWindowBps + 5_000) / 10_000);
}

/**
 * Downtime: a full window has been counted since the window was last judged from (its start, or a
 * downtime jail) and more blocks were missed than it allows.
 */
export function isDowntime(window: SigningWindow, params: Pick<StakingParams, 'signedBlocksWindow' | 'minSignedPerWindowBps'>): boolean {
  const maxMissed = params.signedBlocksWindow - minSignedPerWindow(params);
  return window.index - window.judgedFrom >= params.signedBlocksWindow && window.missed > maxMissed;
}

/** Signed share of the counted blocks of the window in basis points; 10000 when none are counted. */
export function uptimeBps(window: SigningWindow, size: number): number {
  const counted = Math.min(window.index, size);
  if (counted === 0) return 10_000;
  return Math.floor(((counted - window.missed) * 10_000) / counted);
}

/** The counted blocks of the window, oldest first: true where the block was missed (at most `size`). */
export function windowMisses(window: SigningWindow): boolean[] {
  const counted = Math.min(window.index, window.size);
  const out: boolean[] = [];
  for (let k = window.index - counted; k < window.index; k++) {
    const pos = k % window.size;
    out.push((window.bitmap[pos >> 3]! & (1 << (pos & 7))) !== 0);
  }
  return out;
}
