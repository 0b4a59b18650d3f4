// Passwords: argon2id hashes (PHC strings) and the rules a new password must meet.
import { Algorithm, hash, verify } from '@node-rs/argon2';
import { explorer as params } from '../../params.js';
import { WorkGate } from '../work-gate.js';

const options = { algorithm: Algorithm.Argon2id, ...params.argon2 };

/** argon2 runs on libuv's pool: a few at a time, so logins never take every core from block production and reads. */
const argon2Gate = new WorkGate('password hashing', params.argon2Workers, params.argon2MaxWaiting);

/** A hash of a password nobody has, so that unknown emails cost a login as much as wrong passwords. */
let decoy: Promise<string> | undefined;

/** The argon2id PHC string of `password`. */
export function hashPassword(password: string): Promise<string> {
  return argon2Gate.run(() => hash(password, options));
}

/** Whether `password` matches `passwordHash`; without a hash it still spends the same work and fails. */
export async function verifyPassword(passwordHash: string | undefined, password: string): Promise<boolean> {
  if (passwordHash === undefined) {
    decoy ??= hashPassword('decoy password that is never accepted');
    const decoyHash = await decoy;
    await argon2Gate.run(() => verify(decoyHash, password));
    return false;
  }
  return argon2Gate.run(async () => {
    try {
      return await verify(passwordHash, password);
    } catch {
      return false;
    }
  });
}

/** Why `password` is not acceptable for the account `email`, or null. */
export function passwordProblem(password: string, email: string): string | null {
  const length = [...password].length;
  if (length < params.passwordMinLength) return `password must be at least ${params.passwordMinLength} characters`;
  if (length > params.passwordMaxLength) return `password must be at most ${params.passwordMaxLength} characters`;
  if (password.trim() === '') return 'password must not be only spaces';
  if (password.toLowerCase() === email) return 'password must not be the email address';
  return null;
}

/** The canonical form of an email (trimmed, lowercase), or null when it is not an address. */
export function normaliseEmail(raw: string): string | null {
  const email = raw.trim().toLowerCase();
  if (email.length > params.emailMaxLength) return null;
  return /^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(email) ? email : null;
}
