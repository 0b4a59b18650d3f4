// The explorer's web page: the single-page app that scripts/build-web.mjs bundles into dist/web,
// served at / on the explorer's port (same origin as /api/v1). Assets have hashed names and are
// cached for a year; index.html answers every other GET that asks for HTML, so client routes
// (/block/12, /tx/0x…) have stable URLs, while API paths keep their JSON 404s.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import type { Context, Next } from 'koa';

/** Where the built page lies: dist/web beside dist/src (in the repository and in the package). */
export const WEB_DIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..', 'web');

const TYPES: Record<string, string> = {
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.html': 'text/html; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.map': 'application/json',
};

/** Paths the page never takes: the REST API, the Etherscan-compatible /api, the live feed, the operator's routes. */
const NOT_PAGE = /^\/(api|socket\.io|admin)(\/|$)/;

/** Everything the browser may load from the page, the API and the live feed on this origin, nothing elsewhere. */
const CONTENT_SECURITY_POLICY = "default-src 'self'; connect-src 'self' ws: wss:; img-src 'self' data:; style-src 'self'; script-src 'self'; base-uri 'none'; frame-ancestors 'none'";

interface Asset {
  type: string;
  body: Buffer;
  gzip: Buffer;
}

function asset(file: string): Asset {
  const body = readFileSync(file);
  return { type: TYPES[path.extname(file)] ?? 'application/octet-stream', body, gzip: gzipSync(body, { level: 9 }) };
}

/** The built page held in memory (a few hundred KB), each file with its gzip form. */
export class WebPage {
  private constructor(
    private readonly index: Asset,
    private readonly assets: Map<string, Asset>,
  ) {}

  /** The page built in `dir`, or null when it was not built (the explorer then serves the API only). */
  static load(dir = WEB_DIR): WebPage | null {
    const indexFile = path.join(dir, 'index.html');
    if (!existsSync(indexFile)) return null;
    const assets = new Map<string, Asset>();
    const assetDir = path.join(dir, 'assets');
    for (const name of existsSync(assetDir) ? readdirSync(assetDir) : []) assets.set(`/assets/${name}`, asset(path.join(assetDir, name)));
    return new WebPage(asset(indexFile), assets);
  }

  /** koa middleware: assets under /assets/, index.html at / and for other GETs that accept HTML; the rest goes on. */
  middleware() {
    return async (ctx: Context, next: Next): Promise<void> => {
      if ((ctx.method !== 'GET' && ctx.method !== 'HEAD') || NOT_PAGE.test(ctx.path)) return next();
      const file = this.assets.get(ctx.path);
      if (file) {
        // Names carry the content's hash: a new build is a new name.
        ctx.set('Cache-Control', 'public, max-age=31536000, immutable');
        return this.send(ctx, file);
      }
      if (ctx.path.startsWith('/assets/') || (ctx.path !== '/' && !acceptsHtml(ctx))) return next();
      ctx.set('Cache-Control', 'no-cache');
      ctx.set('Content-Security-Policy', CONTENT_SECURITY_POLICY);
      ctx.set('X-Content-Type-Options', 'nosniff');
      return this.send(ctx, this.index);
    };
  }

  private send(ctx: Context, file: Asset): void {
    ctx.status = 200;
    ctx.type = file.type;
    ctx.vary('Accept-Encoding');
    if (ctx.acceptsEncodings('gzip', 'identity') === 'gzip') {
      ctx.set('Content-Encoding', 'gzip');
      ctx.body = file.gzip;
    } else {
      ctx.body = file.body;
    }
  }
}

/** Whether the request names text/html in Accept (browsers do; a bare wildcard, as curl and fetch send, does not). */
function acceptsHtml(ctx: Context): boolean {
  return /(^|,)\s*text\/html\s*(;|,|$)/i.test(ctx.get('Accept'));
}
