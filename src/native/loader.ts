// Loads an addon through the loader that napi-rs generates for it (native/<addon>.cjs; its committed
// copy is src/native/generated/<addon>.cjs, checked to be current by `npm test`). The generated loader
// tries a local build beside it (native/<binary>.<platform>.node, what `npm install` in a clone
// builds), then the platform package of a prebuilt install (`svc-node-core-linux-x64-gnu`, …). When
// both are missing, the error here says which platform this is, which targets ship prebuilt, and how
// to build from source.
import { createRequire } from 'node:module';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { SvcError } from '../errors.js';

const here = path.dirname(fileURLToPath(import.meta.url));
const require = createRequire(import.meta.url);

/** The package root (holds package.json and native/), from src/native or dist/src/native alike. */
export function packageRoot(): string {
  for (const candidate of [path.resolve(here, '../../..'), path.resolve(here, '../..')]) {
    if (existsSync(path.join(candidate, 'native')) && existsSync(path.join(candidate, 'package.json'))) return candidate;
  }
  throw new Error(`the svc-node package root (with native/ and package.json) was not found above ${here}`);
}

/** The `svc` field of package.json: what ships prebuilt and the libtorch release the inference addon is built against. */
export interface PackageFacts {
  libtorch: string;
  prebuilt: Record<string, string[]>;
}

let facts: PackageFacts | undefined;

export function packageFacts(): PackageFacts {
  facts ??= (JSON.parse(readFileSync(path.join(packageRoot(), 'package.json'), 'utf8')) as { svc: PackageFacts }).svc;
  return facts;
}

/** napi-rs's name of the running platform: linux-x64-gnu, linux-arm64-musl, darwin-arm64, win32-x64-msvc, … */
export function platformName(): string {
  const { platform, arch } = process;
  if (platform === 'linux') {
    const report = process.report?.getReport() as { header?: { glibcVersionRuntime?: string } } | undefined;
    return `linux-${arch}-${report?.header?.glibcVersionRuntime ? 'gnu' : 'musl'}`;
  }
  if (platform === 'win32') return `win32-${arch}-msvc`;
  return `${platform}-${arch}`;
}

/** The addon an error is about: its loader file, the npm name of its platform packages and how to build it. */
export interface AddonDescription {
  loader: string;
  packageName: string;
  buildCommand: string;
}

/** Why an addon did not load: each place the generated loader tried, with the reason. */
export class AddonLoadError extends SvcError {
  override name = 'AddonLoadError';
  override readonly code = 'ADDON_UNAVAILABLE';
}

/** The places the generated loader tried, in its order (it chains them newest first), without its
 *  WASI fallbacks: no WASI build of these addons exists. */
function causes(err: unknown): string[] {
  const out: string[] = [];
  for (let e: unknown = (err as { cause?: unknown })?.cause; e instanceof Error && out.length < 16; e = e.cause) {
    const line = e.message.split('\n')[0] ?? '';
    if (!/wasi/i.test(line)) out.push(line);
  }
  return out.reverse();
}

/** Requires an addon through its generated loader; a clear AddonLoadError when no build of it exists here. */
export function loadAddon<T>(addon: AddonDescription): T {
  const file = path.join(packageRoot(), 'native', addon.loader);
  if (!existsSync(file)) {
    throw new AddonLoadError(`${addon.packageName}: ${path.relative(packageRoot(), file)} is missing (the package is incomplete, or the addon was never built: ${addon.buildCommand})`);
  }
  try {
    return require(file) as T;
  } catch (err) {
    const prebuilt = packageFacts().prebuilt[addon.packageName] ?? [];
    throw new AddonLoadError(addonLoadMessage(addon, platformName(), prebuilt, causes(err), err), { cause: err });
  }
}

/** What an AddonLoadError says: the platform, whether it ships prebuilt, how to build from source, what was tried. */
export function addonLoadMessage(addon: AddonDescription, platform: string, prebuilt: string[], tried: string[], err?: unknown): string {
  return [
    `${addon.packageName} could not be loaded on ${platform}.`,
    prebuilt.includes(platform)
      ? `This platform ships prebuilt as the npm package ${addon.packageName}-${platform}: install it beside svc-node (npm installs it with svc-node unless optional dependencies are omitted), or build from a clone.`
      : `Prebuilt packages exist for ${prebuilt.join(', ') || 'no platform'}; on ${platform} build from source: clone the repository and run \`npm install\` (Rust stable >= 1.91, libclang and Python 3 are needed), or ${addon.buildCommand}.`,
    ...(tried.length > 0 ? ['Tried:', ...tried.map((t) => `  - ${t}`)] : err instanceof Error ? [`Cause: ${err.message}`] : []),
  ].join('\n');
}
