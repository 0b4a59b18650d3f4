#!/usr/bin/env node
// Writes src/chain/entrypoints.generated.ts from the npm package @account-abstraction/contracts
// (0.6.0 and 0.7.0):
//  - the four contracts the devnet and testnet genesis deploy, EntryPoint v0.6 and v0.7, each with
//    its SimpleAccountFactory: the creation code of the package's artifacts/<Contract>.json, byte
//    for byte. It is the code the public networks' deployments ran (their CREATE2 addresses through
//    the deterministic deployer follow from it; src/chain/account-abstraction.ts replays them);
//  - compiled from the package's Solidity sources with solc-js, at the compiler versions and
//    settings the package's own build used: EntryPointSimulations v0.7, never deployed (a bundler
//    puts its runtime code at the v0.7 EntryPoint address as a state override when it simulates:
//    v0.7 moved simulateValidation/simulateHandleOp out of the EntryPoint), so that build also
//    carries its runtime code; VerifyingPaymaster v0.6 and v0.7 (creation code only), deployed by
//    users and tests with the constructor arguments (IEntryPoint entryPoint, address
//    verifyingSigner) appended. Each compiled creation bytecode (and runtime bytecode, where
//    carried) is compared with the one in the package's artifacts/: the comparison (exact, or equal
//    but for the CBOR metadata that solc appends) is recorded in the generated file.
//
//   node scripts/build-entrypoints.mjs           write the generated file
//   node scripts/build-entrypoints.mjs --check   fail when the committed file differs from a fresh build
//
// Packages, OpenZeppelin versions and compilers are devDependencies (npm aliases): aa-contracts-0.6.0,
// aa-contracts-0.7.0, openzeppelin-contracts-4.8.3, openzeppelin-contracts-5.0.0, solc-0.8.15,
// solc-0.8.23. Source unit names are the project's own (contracts/core/EntryPoint.sol,
// @openzeppelin/contracts/...), as in the package's hardhat build, so the metadata can match too.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const require = createRequire(path.join(root, 'package.json'));
export const GENERATED = 'src/chain/entrypoints.generated.ts';

const OPTIMIZER = { enabled: true, runs: 1_000_000 };

/** The genesis contracts: copied from the package's artifacts, not compiled. */
export const ARTIFACTS = [
  { key: 'entryPointV06', contract: 'EntryPoint', pkg: 'aa-contracts-0.6.0' },
  { key: 'simpleAccountFactoryV06', contract: 'SimpleAccountFactory', pkg: 'aa-contracts-0.6.0' },
  { key: 'entryPointV07', contract: 'EntryPoint', pkg: 'aa-contracts-0.7.0' },
  { key: 'simpleAccountFactoryV07', contract: 'SimpleAccountFactory', pkg: 'aa-contracts-0.7.0' },
];

/**
 * One compile per contract: the package version, the compiler, the settings, the sources of the
 * hardhat compile job (the contract's own file first) and the OpenZeppelin release it imports.
 * v0.6: hardhat compiled with 0.8.15 (runs 1000000) without IR (only core/EntryPoint.sol and
 * samples/SimpleAccount.sol were overridden with 0.8.17 via IR). v0.7: 0.8.23 (runs 1000000, evm
 * paris), core/EntryPoint.sol and samples/SimpleAccount.sol via IR. EntryPointSimulations and the
 * VerifyingPaymasters are not among the overrides, so they get the default compiler of their
 * package without IR; for EntryPointSimulations (whose EntryPoint base is built via IR for the
 * EntryPoint itself) both were tried: without IR its creation and runtime code match the artifact
 * but for the metadata, via IR they differ (about 3 KB longer).
 * `runtime: true` asks for the runtime code too (solc's evm.deployedBytecode).
 */
export const BUILDS = [
  {
    key: 'entryPointSimulationsV07',
    contract: 'EntryPointSimulations',
    pkg: 'aa-contracts-0.7.0',
    oz: 'openzeppelin-contracts-5.0.0',
    solc: 'solc-0.8.23',
    settings: { optimizer: OPTIMIZER, evmVersion: 'paris' },
    sources: ['contracts/core/EntryPointSimulations.sol'],
    // Only ever run as code placed at the EntryPoint address by a state override: its constructor
    // never runs there, so what a bundler needs is the runtime code.
    runtime: true,
  },
  {
    key: 'verifyingPaymasterV06',
    contract: 'VerifyingPaymaster',
    pkg: 'aa-contracts-0.6.0',
    oz: 'openzeppelin-contracts-4.8.3',
    solc: 'solc-0.8.15',
    settings: { optimizer: OPTIMIZER },
    sources: ['contracts/samples/VerifyingPaymaster.sol'],
  },
  {
    key: 'verifyingPaymasterV07',
    contract: 'VerifyingPaymaster',
    pkg: 'aa-contracts-0.7.0',
    oz: 'openzeppelin-contracts-5.0.0',
    solc: 'solc-0.8.23',
    settings: { optimizer: OPTIMIZER, evmVersion: 'paris' },
    sources: ['contracts/samples/VerifyingPaymaster.sol'],
  },
];

function packageDir(name) {
  return path.dirname(require.resolve(`${name}/package.json`));
}

/** The CBOR metadata solc appends (ipfs hash + compiler version), blanked for a comparison without it. */
const METADATA = /a264697066735822[0-9a-f]{68}64736f6c6343[0-9a-f]{6}0033/g;

/** How `ours` compares with the artifact's bytecode (both without the 0x). */
function artifactMatchOf(artifact, ours) {
  if (artifact === ours) return 'exact';
  return artifact.replace(METADATA, '') === ours.replace(METADATA, '') ? 'except-metadata' : 'differs';
}

function compile(build) {
  const pkgDir = packageDir(build.pkg);
  const ozDir = packageDir(build.oz);
  const read = (name) => {
    let file;
    if (name.startsWith('contracts/')) file = path.join(pkgDir, name.slice('contracts/'.length));
    else if (name.startsWith('@openzeppelin/contracts/')) file = path.join(ozDir, name.slice('@openzeppelin/contracts/'.length));
    return file && existsSync(file) ? { contents: readFileSync(file, 'utf8') } : { error: `not found: ${name}` };
  };
  const sources = {};
  for (const name of build.sources) {
    const found = read(name);
    if (!('contents' in found)) throw new Error(`${build.pkg}: ${found.error}`);
    sources[name] = { content: found.contents };
  }
  const solc = require(build.solc);
  const selection = ['abi', 'evm.bytecode.object'];
  // immutableReferences: runtime code placed by a state override never had its constructor fill them.
  if (build.runtime) selection.push('evm.deployedBytecode.object', 'evm.deployedBytecode.immutableReferences');
  const input = {
    language: 'Solidity',
    sources,
    settings: { ...build.settings, outputSelection: { [build.sources[0]]: { [build.contract]: selection } } },
  };
  const output = JSON.parse(solc.compile(JSON.stringify(input), { import: read }));
  const errors = (output.errors ?? []).filter((e) => e.severity === 'error');
  if (errors.length) throw new Error(`${build.key}: ${errors.map((e) => e.formattedMessage).join('\n')}`);
  const { evm } = output.contracts[build.sources[0]][build.contract];
  const initCode = evm.bytecode.object;
  const artifact = JSON.parse(readFileSync(path.join(pkgDir, 'artifacts', `${build.contract}.json`), 'utf8'));
  const artifactMatch = artifactMatchOf(artifact.bytecode.slice(2), initCode);
  let runtime = {};
  if (build.runtime) {
    if (Object.keys(evm.deployedBytecode.immutableReferences ?? {}).length > 0) {
      throw new Error(`${build.key}: the runtime code has immutables, which a state override would leave zero`);
    }
    const runtimeCode = evm.deployedBytecode.object;
    runtime = { runtimeArtifactMatch: artifactMatchOf(artifact.deployedBytecode.slice(2), runtimeCode), runtimeCode };
  }
  const version = JSON.parse(readFileSync(path.join(pkgDir, 'package.json'), 'utf8')).version;
  const ozVersion = JSON.parse(readFileSync(path.join(ozDir, 'package.json'), 'utf8')).version;
  return {
    key: build.key,
    source: `@account-abstraction/contracts@${version} ${build.sources[0].slice('contracts/'.length)}`,
    openzeppelin: ozVersion,
    compiler: solc.version(),
    settings: build.settings,
    artifactMatch,
    ...runtime,
    initCode,
  };
}

/** A genesis contract's creation code, as the package's artifact has it. */
function copyArtifact(entry) {
  const pkgDir = packageDir(entry.pkg);
  const artifact = JSON.parse(readFileSync(path.join(pkgDir, 'artifacts', `${entry.contract}.json`), 'utf8'));
  if (!/^0x(?:[0-9a-f]{2})+$/.test(artifact.bytecode)) throw new Error(`${entry.key}: the artifact has no creation code`);
  const version = JSON.parse(readFileSync(path.join(pkgDir, 'package.json'), 'utf8')).version;
  return { key: entry.key, source: `@account-abstraction/contracts@${version} artifacts/${entry.contract}.json`, initCode: artifact.bytecode.slice(2) };
}

/** The generated module's text from the artifacts and fresh compiles. */
export function generate() {
  const copied = ARTIFACTS.map(copyArtifact);
  const results = BUILDS.map(compile);
  const lines = [
    '// Generated by scripts/build-entrypoints.mjs from @account-abstraction/contracts; do not edit.',
    '// `node scripts/build-entrypoints.mjs --check` (run by test/entrypoints.test.ts) fails when it is stale.',
    '// The devnet and testnet genesis deploy the four artifacts (the EntryPoints and SimpleAccountFactories);',
    '// entryPointSimulationsV07 is never deployed (a bundler places its runtimeCode at the v0.7 EntryPoint',
    '// address as a state override when it simulates); the VerifyingPaymasters are deployed by users and tests.',
    '',
    '/** A contract\'s creation code copied from the package\'s artifact, byte for byte. */',
    'export interface AccountAbstractionArtifact {',
    '  source: string;',
    '  initCode: `0x${string}`;',
    '}',
    '',
    '/** How a contract was built and how its creation code compares with the package artifact. */',
    'export interface AccountAbstractionBuild {',
    '  source: string;',
    '  openzeppelin: string;',
    '  compiler: string;',
    '  settings: { optimizer: { enabled: boolean; runs: number }; viaIR?: boolean; evmVersion?: string };',
    "  artifactMatch: 'exact' | 'except-metadata' | 'differs';",
    '  /** How runtimeCode compares with the artifact\'s deployedBytecode, where runtimeCode is carried. */',
    "  runtimeArtifactMatch?: 'exact' | 'except-metadata' | 'differs';",
    '  initCode: `0x${string}`;',
    '  /** The runtime code (solc evm.deployedBytecode), for the builds only ever used as a state override. */',
    '  runtimeCode?: `0x${string}`;',
    '}',
    '',
  ];
  for (const { key, source, initCode } of copied) {
    lines.push(`export const ${key}: AccountAbstractionArtifact = {\n  "source": ${JSON.stringify(source)},\n  "initCode": "0x${initCode}"\n};`, '');
  }
  for (const r of results) {
    const { key, initCode, runtimeCode, ...rest } = r;
    const meta = JSON.stringify(rest, null, 2).slice(0, -2);
    // The long hex strings go last, written by hand so they keep their 0x and one line each.
    const runtime = runtimeCode === undefined ? '' : `,\n  "runtimeCode": "0x${runtimeCode}"`;
    lines.push(`export const ${key}: AccountAbstractionBuild = ${meta},\n  "initCode": "0x${initCode}"${runtime}\n};`, '');
  }
  return { text: lines.join('\n'), copied, results };
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const check = process.argv.includes('--check');
  const started = Date.now();
  const { text, copied, results } = generate();
  for (const c of copied) process.stdout.write(`${c.key}: ${c.source}\n`);
  for (const r of results) {
    const runtime = r.runtimeArtifactMatch === undefined ? '' : `, runtime ${r.runtimeArtifactMatch}`;
    process.stdout.write(`${r.key}: ${r.compiler}, artifact ${r.artifactMatch}${runtime}\n`);
  }
  const file = path.join(root, GENERATED);
  const have = existsSync(file) ? readFileSync(file, 'utf8') : undefined;
  if (check) {
    if (have !== text) {
      process.stderr.write(`${GENERATED} differs from a fresh build: run node scripts/build-entrypoints.mjs and commit it\n`);
      process.exit(1);
    }
    process.stdout.write(`${GENERATED} is up to date (${((Date.now() - started) / 1000).toFixed(1)} s)\n`);
  } else {
    writeFileSync(file, text);
    process.stdout.write(`wrote ${GENERATED} (${((Date.now() - started) / 1000).toFixed(1)} s)\n`);
  }
}
