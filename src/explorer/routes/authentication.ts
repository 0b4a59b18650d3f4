// Authentication routes: register, login, refresh, logout, and the signed-in user's profile.
// Access tokens are JWTs (Authorization: Bearer), valid explorer.accessTokenSeconds (15 min);
// the refresh token rides in the HTTP-only cookie svc_refresh and is rotated on every refresh.
// Register, login and logout take JSON only (415 otherwise): no cross-site form or text/plain post
// reaches them without a CORS preflight.
import { explorer as params } from '../../params.js';
import { object, routes, type Api } from '../schema.js';

const user = object({ id: { type: 'string' }, email: { type: 'string' }, createdAt: { type: 'string', format: 'date-time' } });

/** What register, login and refresh return; the refresh token is set as the svc_refresh cookie. */
const session = object({
  user,
  accessToken: { type: 'string', description: 'JWT for "Authorization: Bearer <token>"' },
  tokenType: { const: 'Bearer' },
  expiresIn: { type: 'integer', description: `seconds the access token is valid (${params.accessTokenSeconds})` },
});

const credentials = {
  type: 'object',
  required: ['email', 'password'],
  additionalProperties: false,
  properties: {
    email: { type: 'string', maxLength: params.emailMaxLength, description: 'email address (compared lowercase)' },
    // The length rule is checked in characters by the handler; this bound only stops huge bodies early.
    password: { type: 'string', maxLength: params.passwordMaxLength * 4, description: `${params.passwordMinLength} to ${params.passwordMaxLength} characters` },
  },
} as const;

export const authenticationRouteDefs = routes([
  {
    id: 'authRegister',
    method: 'POST',
    path: '/auth/register',
    category: 'Authentication',
    summary: 'Create an account; returns an access token and sets the refresh cookie',
    auth: 'public',
    body: credentials,
    jsonOnly: true,
    response: session,
    status: 201,
  },
  {
    id: 'authLogin',
    method: 'POST',
    path: '/auth/login',
    category: 'Authentication',
    summary: 'Sign in with email and password; returns an access token and sets the refresh cookie',
    auth: 'public',
    body: credentials,
    jsonOnly: true,
    response: session,
  },
  {
    id: 'authRefresh',
    method: 'POST',
    path: '/auth/refresh',
    category: 'Authentication',
    summary: 'Exchange the svc_refresh cookie for a new access token and a new refresh token (a reused one revokes the sign-in)',
    auth: 'public',
    response: session,
  },
  {
    id: 'authLogout',
    method: 'POST',
    path: '/auth/logout',
    category: 'Authentication',
    summary: 'Revoke the sign-in of the svc_refresh cookie and clear the cookie',
    auth: 'public',
    // No fields; JSON only, so that another site cannot sign a visitor out with a form post.
    body: { type: 'object', additionalProperties: false, properties: {}, description: 'send {} (or no body) with Content-Type: application/json' },
    jsonOnly: true,
    response: object({ loggedOut: { const: true } }),
  },
  {
    id: 'authMe',
    method: 'GET',
    path: '/auth/me',
    category: 'Authentication',
    summary: 'The signed-in user: id, email, creation time, number of API keys and watchlist entries',
    auth: 'user',
    response: object({ ...user.properties, apiKeys: { type: 'integer' }, watchlist: { type: 'integer' } }),
  },
]);

export type AuthenticationApi = Api<typeof authenticationRouteDefs>;
