#!/usr/bin/env node
// Installs Debian's chromium (the browser the explorer's web tests drive with playwright-core) when
// /usr/bin/chromium is missing: apt-get as root, else through sudo. Playwright's own browser
// downloads are not used: CI machines reach the Debian mirrors, not its CDN.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { pathToFileURL } from 'node:url';

export const CHROMIUM_PATH = process.env.SVC_CHROMIUM_PATH ?? '/usr/bin/chromium';

function run(cmd, args, env) {
  const r = spawnSync(cmd, args, { stdio: 'inherit', env });
  if (r.status !== 0) throw new Error(`${cmd} ${args.join(' ')} failed with exit code ${r.status ?? r.signal}`);
}

function has(cmd) {
  return spawnSync('sh', ['-c', `command -v ${cmd}`], { stdio: 'ignore' }).status === 0;
}

/** Installs chromium with apt-get unless it is there; returns its path. */
export function ensureChromium() {
  if (existsSync(CHROMIUM_PATH)) return CHROMIUM_PATH;
  if (!has('apt-get')) throw new Error(`${CHROMIUM_PATH} is missing and apt-get is not available: install chromium (or set SVC_CHROMIUM_PATH)`);
  const isRoot = typeof process.getuid === 'function' && process.getuid() === 0;
  const apt = (args) => (isRoot ? run('apt-get', args, env) : run('sudo', ['-E', 'apt-get', ...args], env));
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  process.stdout.write('[svc-node setup] installing chromium (the explorer web tests drive it)\n');
  apt(['update', '-qq']);
  apt(['install', '-y', '-qq', '--no-install-recommends', 'chromium']);
  if (!existsSync(CHROMIUM_PATH)) throw new Error(`chromium was installed but ${CHROMIUM_PATH} is missing`);
  return CHROMIUM_PATH;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  try {
    process.stdout.write(`[svc-node setup] chromium: ${ensureChromium()}\n`);
  } catch (err) {
    process.stderr.write(`[svc-node setup] ${err.message}\n`);
    process.exit(1);
  }
}
