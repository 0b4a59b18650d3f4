// The module kernel's public surface.
export * from './module.js';
export { ModuleRegistry, type HookOrder } from './registry.js';
export { RecordChanges, RecordCodecError, decodeRecord, encodeRecord, loadRecords } from './records.js';
export { decodeMessage, encodeMessage, messagesDigest, type ModuleMessage } from './messages.js';
