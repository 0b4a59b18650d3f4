// The node's event bus: new blocks and newly pooled transactions, fanned out to subscribers.
import { EventEmitter } from 'node:events';
import type { ProducedBlock } from '../native/index.js';

export interface NodeEvents extends EventEmitter {
  on(event: 'block', listener: (block: ProducedBlock) => void): this;
  on(event: 'pendingTransaction', listener: (hash: Buffer) => void): this;
  emit(event: 'block', block: ProducedBlock): boolean;
  emit(event: 'pendingTransaction', hash: Buffer): boolean;
}

/** Listeners a serving layer may attach before Node.js warns of a leak (filters, ws, explorer, metrics). */
const MAX_LISTENERS = 64;

/** A fresh event bus for one running node. */
export function createNodeEvents(): NodeEvents {
  const events = new EventEmitter() as NodeEvents;
  events.setMaxListeners(MAX_LISTENERS);
  return events;
}
