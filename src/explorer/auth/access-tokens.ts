// JWT access tokens: HS256 with one secret (from SVC_EXPLORER_JWT_SECRET, or generated once and
// kept in the users column family), the algorithm pinned on verify so `alg: none` and RS/HS
// confusion fail, issuer and audience checked, and a short lifetime.
import { randomBytes } from 'node:crypto';
import jwt from 'jsonwebtoken';
import { explorer as params } from '../../params.js';
import type { AuthenticatedUser } from '../definition.js';
import { UnauthorizedError } from '../envelope.js';
import type { UsersStore } from './store.js';

export const JWT_SECRET_ENV = 'SVC_EXPLORER_JWT_SECRET';
const SECRET_KEY = Buffer.from('jwt-secret', 'utf8');
const ISSUER = 'svc-explorer';
const AUDIENCE = 'svc-explorer-api';

/** The HS256 secret: the environment's (at least minJwtSecretBytes), else the stored one, else a new one stored now. */
export function jwtSecret(store: UsersStore, env: NodeJS.ProcessEnv = process.env): Buffer {
  const configured = env[JWT_SECRET_ENV];
  if (configured !== undefined && configured !== '') {
    const secret = Buffer.from(configured, 'utf8');
    if (secret.length < params.minJwtSecretBytes) {
      throw new Error(`${JWT_SECRET_ENV} must be at least ${params.minJwtSecretBytes} bytes (HS256 needs a key as long as its hash)`);
    }
    return secret;
  }
  const stored = store.meta.get(SECRET_KEY);
  if (stored !== undefined) return Buffer.from(stored, 'base64');
  const secret = randomBytes(params.jwtSecretBytes);
  store.meta.put(SECRET_KEY, secret.toString('base64'));
  return secret;
}

/** What a client gets from register, login and refresh. */
export interface IssuedAccessToken {
  accessToken: string;
  tokenType: 'Bearer';
  /** Seconds the access token is valid. */
  expiresIn: number;
}

export class AccessTokens {
  constructor(
    private readonly secret: Buffer,
    private readonly store: UsersStore,
  ) {}

  issue(user: AuthenticatedUser): IssuedAccessToken {
    const accessToken = jwt.sign({ email: user.email, typ: 'access' }, this.secret, {
      algorithm: 'HS256',
      subject: user.id,
      issuer: ISSUER,
      audience: AUDIENCE,
      expiresIn: params.accessTokenSeconds,
    });
    return { accessToken, tokenType: 'Bearer', expiresIn: params.accessTokenSeconds };
  }

  /** The user of an `Authorization` header; 401 saying whether the token is missing, expired or invalid. */
  authenticate(authorization: string | undefined): AuthenticatedUser {
    if (authorization === undefined || authorization === '') {
      throw new UnauthorizedError('access token missing: send "Authorization: Bearer <access token>" from /auth/login');
    }
    const m = /^Bearer +([A-Za-z0-9_\-.=]+)$/i.exec(authorization.trim());
    if (!m) throw new UnauthorizedError('access token invalid: the Authorization header must be "Bearer <access token>"');
    let claims: jwt.JwtPayload;
    try {
      const decoded = jwt.verify(m[1]!, this.secret, { algorithms: ['HS256'], issuer: ISSUER, audience: AUDIENCE });
      if (typeof decoded === 'string') throw new Error('not a claims object');
      claims = decoded;
    } catch (err) {
      if (err instanceof jwt.TokenExpiredError) throw new UnauthorizedError('access token expired: get a new one from POST /api/v1/auth/refresh');
      throw new UnauthorizedError('access token invalid');
    }
    const user = typeof claims.sub === 'string' && /^[0-9a-f]{32}$/.test(claims.sub) ? this.store.users.get(Buffer.from(claims.sub, 'hex')) : undefined;
    if (claims['typ'] !== 'access' || !user) throw new UnauthorizedError('access token invalid');
    return { id: user.id, email: user.email };
  }
}
