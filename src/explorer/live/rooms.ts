// The rooms of the explorer's live feed, after Blockscout's channels, and the event each one carries.

/** Rooms with a fixed name, and the socket.io event their members receive. */
export const FIXED_ROOMS = {
  'blocks:new_block': 'new_block',
  'transactions:new_transaction': 'new_transaction',
  'transactions:new_pending_transaction': 'new_pending_transaction',
  'validators:changes': 'validator_change',
  'governance:proposals': 'proposal_event',
  'bridge:events': 'bridge_event',
  'rent:events': 'rent_event',
} as const;
import { SvcError } from '../../errors.js';

export type FixedRoom = keyof typeof FIXED_ROOMS;

/** Events of the per-object rooms `addresses:<address>` and `tokens:<address>`. */
export const OBJECT_EVENTS = {
  /** A mined transaction the address took part in (addresses:* only). */
  transaction: 'transaction',
  /** A token transfer of the token, or one the address sent or received. */
  tokenTransfer: 'token_transfer',
} as const;

/** A room name that cannot be joined, with the reason the ack carries. */
export class InvalidRoomError extends SvcError {
  override name = 'InvalidRoomError';
  override readonly code = 'INVALID_ROOM';
}

const OBJECT_ROOM = /^(addresses|tokens):(0x[0-9a-fA-F]{40})$/;

/** The canonical name of a room (addresses lowercase); throws InvalidRoomError. */
export function parseRoom(value: unknown): string {
  if (typeof value !== 'string') throw new InvalidRoomError('room must be a string such as "blocks:new_block"');
  if (Object.hasOwn(FIXED_ROOMS, value)) return value;
  const m = OBJECT_ROOM.exec(value);
  if (m) return `${m[1]}:${m[2]!.toLowerCase()}`;
  const known = [...Object.keys(FIXED_ROOMS), 'addresses:<address>', 'tokens:<address>'].join(', ');
  throw new InvalidRoomError(`unknown room ${JSON.stringify(value.slice(0, 100))}: rooms are ${known}`);
}

export const addressRoom = (address: string): string => `addresses:${address.toLowerCase()}`;
export const tokenRoom = (address: string): string => `tokens:${address.toLowerCase()}`;
