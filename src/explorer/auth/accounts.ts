// Accounts: registration and sign-in by email and password. Emails are compared lowercase;
// a second registration of an email is a conflict even when two race (the last check and the
// write happen with no await between them).
import { explorer as params } from '../../params.js';
import { BadRequestError, ConflictError, UnauthorizedError } from '../envelope.js';
import { commit } from '../store.js';
import { hashPassword, normaliseEmail, passwordProblem, verifyPassword } from './passwords.js';
import { idKey, newId, type UserRecord, type UsersStore } from './store.js';

/** A user as the API shows it. */
export interface PublicUser {
  id: string;
  email: string;
  createdAt: string;
}

export const publicUser = (u: UserRecord): PublicUser => ({ id: u.id, email: u.email, createdAt: u.createdAt });

const emailKey = (email: string): Buffer => Buffer.from(email, 'utf8');

export class Accounts {
  constructor(private readonly store: UsersStore) {}

  async register(rawEmail: string, password: string): Promise<UserRecord> {
    const email = normaliseEmail(rawEmail);
    if (email === null) throw new BadRequestError(`email is not a valid address (at most ${params.emailMaxLength} characters, like name@example.com)`);
    const problem = passwordProblem(password, email);
    if (problem) throw new BadRequestError(problem);
    const taken = () => {
      if (this.store.emails.get(emailKey(email)) !== undefined) throw new ConflictError('an account with this email already exists');
    };
    taken();
    const passwordHash = await hashPassword(password);
    taken();
    const user: UserRecord = { id: newId(), email, passwordHash, createdAt: new Date().toISOString() };
    commit(this.store.chain, 'users', [this.store.users.putWrite(idKey(user.id), user), this.store.emails.putWrite(emailKey(email), user.id)]);
    return user;
  }

  /** The user with this email and password; one 401 for an unknown email and a wrong password alike. */
  async login(rawEmail: string, password: string): Promise<UserRecord> {
    const email = normaliseEmail(rawEmail);
    const userId = email === null ? undefined : this.store.emails.get(emailKey(email));
    const user = userId === undefined ? undefined : this.store.users.get(idKey(userId));
    if (!(await verifyPassword(user?.passwordHash, password)) || !user) throw new UnauthorizedError('email or password is incorrect');
    return user;
  }

  user(userId: string): UserRecord | undefined {
    return this.store.users.get(idKey(userId));
  }
}
