// The compute mode a proposer announces: carried in its block's extra data (after the client name,
// as `;compute=<mode>`), so the mode recorded for a validator comes from block data, not from the
// memory of the node that replays or follows the block.
import type { ComputeMode } from './types.js';

const TAG = ';compute=';
const MODES: readonly ComputeMode[] = ['pow', 'inference', 'none'];
/** geth's MaximumExtraDataSize. */
const MAX_EXTRA_DATA = 32;

/** `extraData` with the mode announced; unchanged when it would not fit in 32 bytes. */
export function announceComputeMode(extraData: Buffer, mode: ComputeMode | undefined): Buffer {
  if (mode === undefined) return extraData;
  const tagged = Buffer.concat([extraData, Buffer.from(`${TAG}${mode}`, 'utf8')]);
  return tagged.length <= MAX_EXTRA_DATA ? tagged : extraData;
}

/** The mode a block's extra data announces, if any. */
export function announcedComputeMode(extraData: Buffer): ComputeMode | undefined {
  const text = extraData.toString('latin1');
  const at = text.lastIndexOf(TAG);
  if (at < 0) return undefined;
  const mode = text.slice(at + TAG.length);
  return (MODES as readonly string[]).includes(mode) ? (mode as ComputeMode) : undefined;
}
