// Challenge inputs: sentences drawn from a fixed vocabulary by a seed (derived from a block hash),
// 12 to 27 words each: 292^12 (about 10^29) or more possible inputs per draw, so no miner can precompute them;
// the drawn text is stored with its task, so any node can re-execute it.
import { blake3 } from '@noble/hashes/blake3.js';

const WORDS = [...new Set((
  'the a of to and in that is was for on are with as at be by this have from or one had not but what all were when we there can an ' +
  'your which their said if do will each about how up out them then she many some so these would other into has more her two like ' +
  'him see time could no make than first been its who now people my made over did down only way find use may water long little very ' +
  'after words called just where most know get through back much before go good new write our used me man too any day same right look ' +
  'think also around another came come work three word must because does part even place well such here take why things help put years ' +
  'different away again off went old number great tell men say small every found still between name should home big give air line set ' +
  'own under read last never us left end along while might next sound below saw something thought both few those always looked show ' +
  'large often together asked house world going want school important until form food keep children feet land side without boy once ' +
  'animals life enough took sometimes four head above kind began almost live page got earth need far hand high year mother light parts ' +
  'country father let night following picture being study second eyes soon times story boys since white days ever paper hard near ' +
  'sentence better best across during today others however sure means knew its try told young miles sun ways thing whole hear example ' +
  'heard several change answer room sea against top turned learn point city play toward five using himself usually money seen car morning'
).split(' '))];

/** The vocabulary's size (for tests). */
export const VOCABULARY_SIZE = WORDS.length;

/** A sentence of 12 to 27 words chosen by the bytes of BLAKE3-XOF(seed). */
export function challengeSentence(seed: Uint8Array): string {
  const bytes = blake3(seed, { dkLen: 64 });
  const count = 12 + (bytes[0]! % 16);
  const words: string[] = [];
  for (let i = 0; i < count; i++) {
    const v = (bytes[1 + 2 * i]! << 8) | bytes[2 + 2 * i]!;
    words.push(WORDS[v % WORDS.length]!);
  }
  const text = words.join(' ');
  return `${text[0]!.toUpperCase()}${text.slice(1)}.`;
}
