// Finds libtorch at run time for the inference addon and loads it into the process before the addon,
// which needs libtorch_cpu and libc10 but carries no path to them: the same binary then runs from a
// clone (libtorch in the project's cache) and from the prebuilt npm package (libtorch from
// `pip install torch` or an unpacked libtorch named by LIBTORCH). Places, in order:
//   1. $LIBTORCH: an unpacked libtorch (its lib/ holds the libraries) or a torch package directory;
//   2. the project's cache, where `npm install` in a clone put it ($SVC_CACHE_DIR/libtorch/<version>);
//   3. the torch package of Python ($SVC_PYTHON, else python3 on PATH), found without importing it.
// The libtorch release must be the one the addon is built against (package.json `svc.libtorch`).
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import path from 'node:path';
import { core } from './index.js';
import { packageFacts } from './loader.js';

/** A libtorch found on this machine. */
export interface LibtorchLocation {
  /** Where it was found (for messages). */
  source: string;
  /** The directory holding libc10 and libtorch_cpu. */
  libDir: string;
  /** Its release, where the directory says it (torch/version.py, libtorch's build-version). */
  version: string | null;
}

const LIB = process.platform === 'darwin' ? (name: string) => `lib${name}.dylib` : (name: string) => `lib${name}.so`;

function hasLibraries(dir: string): boolean {
  return existsSync(path.join(dir, LIB('c10'))) && existsSync(path.join(dir, LIB('torch_cpu')));
}

/** The release a libtorch or torch package directory declares. */
function declaredVersion(dir: string): string | null {
  const versionPy = path.join(dir, 'version.py');
  if (existsSync(versionPy)) {
    const m = /__version__\s*=\s*['"]([^'"]+)['"]/.exec(readFileSync(versionPy, 'utf8'));
    if (m) return m[1] ?? null;
  }
  const buildVersion = path.join(dir, 'build-version');
  if (existsSync(buildVersion)) return readFileSync(buildVersion, 'utf8').trim() || null;
  return null;
}

/** Whether `version` (e.g. 2.13.0+cu130) is the release `want` (e.g. 2.13.0), up to its local label. */
export function sameRelease(version: string, want: string): boolean {
  return version.split('+')[0] === want;
}

function pythonTorchDir(env: NodeJS.ProcessEnv): { dir: string | null; python: string; why?: string } {
  const python = env.SVC_PYTHON ?? 'python3';
  const script = "import importlib.util as u; s = u.find_spec('torch'); print(s.submodule_search_locations[0] if s and s.submodule_search_locations else '')";
  const r = spawnSync(python, ['-c', script], { encoding: 'utf8', env, timeout: 20_000 });
  if (r.error) return { dir: null, python, why: `${python}: ${r.error.message}` };
  if (r.status !== 0) return { dir: null, python, why: `${python} failed: ${r.stderr.trim().split('\n').pop() ?? ''}` };
  const dir = r.stdout.trim();
  return dir ? { dir, python } : { dir: null, python, why: `${python} has no torch package` };
}

/** The first usable libtorch of the places above, or every place looked at and why it was passed over. */
export function findLibtorch(env: NodeJS.ProcessEnv = process.env): { found: LibtorchLocation } | { looked: string[] } {
  const want = packageFacts().libtorch;
  const looked: string[] = [];
  const consider = (source: string, dir: string): LibtorchLocation | null => {
    const libDir = [path.join(dir, 'lib'), dir].find(hasLibraries);
    if (!libDir) {
      looked.push(`${source}: no ${LIB('torch_cpu')} in ${dir} or its lib/`);
      return null;
    }
    const version = declaredVersion(dir);
    if (version !== null && !sameRelease(version, want)) {
      looked.push(`${source}: ${dir} is libtorch ${version}, the addon needs ${want}`);
      return null;
    }
    return { source, libDir, version };
  };
  if (env.LIBTORCH) {
    // An explicit choice is never passed over for another.
    const hit = consider('LIBTORCH', path.resolve(env.LIBTORCH));
    return hit ? { found: hit } : { looked };
  }
  const cache = env.SVC_CACHE_DIR ?? path.join(homedir(), '.cache', 'svc-node');
  const cached = path.join(cache, 'libtorch', want);
  if (existsSync(cached)) {
    const libDir = path.join(cached, 'torch-cpu', 'lib');
    if (hasLibraries(libDir)) return { found: { source: 'the project cache', libDir, version: want } };
    looked.push(`the project cache: ${libDir} is incomplete`);
  } else {
    looked.push(`the project cache: no ${cached}`);
  }
  const py = pythonTorchDir(env);
  if (py.dir) {
    const hit = consider(`Python's torch (${py.python})`, py.dir);
    if (hit) return { found: hit };
  } else {
    looked.push(py.why ?? `${py.python}: no torch`);
  }
  return { looked };
}

/** How to get libtorch, for the error that says it is missing. */
export function libtorchInstructions(): string {
  const want = packageFacts().libtorch;
  return (
    `install PyTorch ${want} for Python (\`python3 -m pip install torch==${want}\`; CPU-only build: ` +
    `add \`--index-url https://download.pytorch.org/whl/cpu\`; another interpreter: set SVC_PYTHON), ` +
    `or set LIBTORCH to an unpacked libtorch ${want}`
  );
}

let loaded: LibtorchLocation | undefined;

/** Loads libtorch into the process (once); throws with what was looked at and how to install it. */
export function loadLibtorch(env: NodeJS.ProcessEnv = process.env): LibtorchLocation {
  if (loaded) return loaded;
  const result = findLibtorch(env);
  if (!('found' in result)) {
    throw new Error(`libtorch ${packageFacts().libtorch} was not found (${result.looked.join('; ')}): ${libtorchInstructions()}`);
  }
  // libc10 first: libtorch_cpu needs it, and both must be the same release.
  for (const name of ['c10', 'torch_cpu']) core.loadSharedLibrary(path.join(result.found.libDir, LIB(name)));
  // The cuda backend opens libtorch_cuda when asked for; a torch package keeps it beside libtorch_cpu.
  const cuda = path.join(result.found.libDir, LIB('torch_cuda'));
  if (env === process.env && !process.env.SVC_LIBTORCH_CUDA && existsSync(cuda)) process.env.SVC_LIBTORCH_CUDA = cuda;
  loaded = result.found;
  return loaded;
}
