// JWT access tokens: HS256 with one secret (from SVC_EXPLORER_JWT_SECRET, or generated once and
// kept in a file of the data dir that only the node's user can read), the algorithm pinned on
// verify so `alg: none` and RS/HS confusion fail, issuer and audience checked, and a short
// lifetime that every token must carry.
import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { securePrivateFile, writePrivateFile } from '../../chain/data-dir.js';
import jwt from 'jsonwebtoken';
import { explorer as params } from '../../params.js';
import type { AuthenticatedUser } from '../definition.js';
import { UnauthorizedError } from '../envelope.js';
import type { UsersStore } from './store.js';

export const JWT_SECRET_ENV = 'SVC_EXPLORER_JWT_SECRET';
/** The generated secret's file in the data dir (mode 0600). */
export const JWT_SECRET_FILE = 'explorer-jwt-secret';
/** Where older nodes kept the generated secret (users column family); moved to the file on start. */
const LEGACY_SECRET_KEY = Buffer.from('jwt-secret', 'utf8');
const ISSUER = 'svc-explorer';
const AUDIENCE = 'svc-explorer-api';

/**
 * The HS256 secret: the environment's (at least minJwtSecretBytes), else the one in
 * `<dataDir>/explorer-jwt-secret` (its mode set back to 0600 if it was wider), else one kept by
 * an older node in the users column family (moved to the file, so tokens stay valid), else a new
 * one written now.
 */
export function jwtSecret(dataDir: string, store: UsersStore, env: NodeJS.ProcessEnv = process.env): Buffer {
  const configured = env[JWT_SECRET_ENV];
  if (configured !== undefined && configured !== '') {
    const secret = Buffer.from(configured, 'utf8');
    if (secret.length < params.minJwtSecretBytes) {
      throw new Error(`${JWT_SECRET_ENV} must be at least ${params.minJwtSecretBytes} bytes (HS256 needs a key as long as its hash)`);
    }
    return secret;
  }
  const file = path.join(dataDir, JWT_SECRET_FILE);
  if (existsSync(file)) {
    securePrivateFile(file);
    const secret = Buffer.from(readFileSync(file, 'utf8').trim(), 'base64');
    if (secret.length < params.minJwtSecretBytes) throw new Error(`${file} holds no usable secret: remove it to have a new one generated`);
    return secret;
  }
  const legacy = store.meta.get(LEGACY_SECRET_KEY);
  const secret = legacy !== undefined ? Buffer.from(legacy, 'base64') : randomBytes(params.jwtSecretBytes);
  writePrivateFile(file, `${secret.toString('base64')}\n`);
  if (legacy !== undefined) store.meta.delete(LEGACY_SECRET_KEY);
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
      // jsonwebtoken accepts a token without `exp`; such a token would never expire.
      if (typeof decoded.exp !== 'number') throw new Error('no expiry');
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
