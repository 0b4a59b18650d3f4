// The kernel's own records: the total supply after the head's mints and slashes (app/supply), and
// the digest of the block's system messages (app/messages), so the state root commits to them. They
// are stored in the staking module's account, the address the chain has kept them at since its
// first block: moving them would change every state root, and a recorded chain must replay to the
// same roots. The kernel alone reads and writes them; no module decides them.
import type { Chain, RecordWrite } from '../../native/index.js';
import { system } from '../../params.js';
import { messagesDigest } from './messages.js';
import { addressBuffer } from './module.js';

/** The account whose storage holds the kernel's records (the staking module's, see above). */
const KERNEL_OWNER = addressBuffer(system.stakingAddress);
/** Total supply after the head's mints and slashes: a decimal string. */
const SUPPLY_KEY = Buffer.from('app/supply', 'utf8');
/** The digest of the block's system messages (absent when it carries none). */
const MESSAGES_KEY = Buffer.from('app/messages', 'utf8');

/** Total supply after the head's mints and slashes, from its record (the genesis supply before the first block writes it). */
export function readSupply(chain: Pick<Chain, 'getAppValue'>, genesisSupply: bigint): bigint {
  const value = chain.getAppValue(SUPPLY_KEY);
  return value === null ? genesisSupply : BigInt(value.toString('utf8'));
}

/** The write of the supply record. */
export function supplyRecord(supply: bigint): RecordWrite {
  return { module: KERNEL_OWNER, key: SUPPLY_KEY, value: Buffer.from(supply.toString(), 'utf8') };
}

/** The write of the messages record: the block's digest, or a delete when it has none and the parent had some. */
export function messagesRecord(chain: Pick<Chain, 'getAppValue'>, messages: readonly Buffer[]): RecordWrite[] {
  if (messages.length > 0) return [{ module: KERNEL_OWNER, key: MESSAGES_KEY, value: messagesDigest(messages) }];
  return chain.getAppValue(MESSAGES_KEY) === null ? [] : [{ module: KERNEL_OWNER, key: MESSAGES_KEY }];
}
