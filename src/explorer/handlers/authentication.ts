// Authentication handlers: sessions start at register or login (an access token in the body, a
// refresh token in the cookie) and continue through refresh until logout.
import type { Context } from 'koa';
import { routeModule, type Handlers } from '../definition.js';
import { authServices, type AuthServices } from '../auth/access.js';
import { publicUser } from '../auth/accounts.js';
import { clearRefreshCookie, readRefreshCookie, setRefreshCookie, type IssuedRefreshToken } from '../auth/refresh-tokens.js';
import type { UserRecord } from '../auth/store.js';
import { UnauthorizedError } from '../envelope.js';
import { authenticationRouteDefs } from '../routes/authentication.js';

interface Credentials {
  email: string;
  password: string;
}

/** The session body for `user`, with its refresh token set as the cookie. */
function session(auth: AuthServices, http: Context, user: UserRecord, refresh: IssuedRefreshToken) {
  setRefreshCookie(http, refresh);
  return { user: publicUser(user), ...auth.accessTokens.issue(user) };
}

export const authenticationHandlers: Handlers<typeof authenticationRouteDefs> = {
  async authRegister({ body, http }, services) {
    const auth = authServices(services);
    const { email, password } = body as Credentials;
    const user = await auth.accounts.register(email, password);
    return session(auth, http, user, auth.refreshTokens.start(user.id));
  },

  async authLogin({ body, http }, services) {
    const auth = authServices(services);
    const { email, password } = body as Credentials;
    // Refused while the account is locked by failed sign-ins from anywhere; a 401 here counts as one.
    const user = await auth.logins.attempt(email, () => auth.accounts.login(email, password));
    return session(auth, http, user, auth.refreshTokens.start(user.id));
  },

  authRefresh({ http }, services) {
    const auth = authServices(services);
    try {
      const refresh = auth.refreshTokens.rotate(readRefreshCookie(http));
      const user = auth.accounts.user(refresh.userId);
      if (!user) throw new UnauthorizedError('refresh token invalid: the account no longer exists');
      return session(auth, http, user, refresh);
    } catch (err) {
      // A refused cookie is of no further use to the browser.
      clearRefreshCookie(http);
      throw err;
    }
  },

  authLogout({ http }, services) {
    authServices(services).refreshTokens.revoke(readRefreshCookie(http));
    clearRefreshCookie(http);
    return { loggedOut: true };
  },

  authMe({ user }, services) {
    const auth = authServices(services);
    const record = user && auth.accounts.user(user.id);
    if (!record) throw new UnauthorizedError('access token invalid');
    return { ...publicUser(record), apiKeys: auth.apiKeys.count(record.id), watchlist: auth.watchlists.count(record.id) };
  },
};

export const authenticationRoutes = routeModule(authenticationRouteDefs, authenticationHandlers);
