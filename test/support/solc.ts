// Compiles the Solidity sources under test/contracts with solc-js (standard JSON), once per process.
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import type { Abi, Hex } from 'viem';
import { repoRoot } from './repo.js';

const require = createRequire(import.meta.url);

interface SolcJs {
  version(): string;
  compile(input: string, callbacks: { import: (p: string) => { contents: string } | { error: string } }): string;
}

/** A compiled contract: what viem's deployContract and ethers' ContractFactory take. */
export interface CompiledContract {
  abi: Abi;
  bytecode: Hex;
  deployedBytecode: Hex;
}

interface SolcOutput {
  errors?: { severity: 'error' | 'warning' | 'info'; formattedMessage: string }[];
  contracts?: Record<string, Record<string, { abi: Abi; evm: { bytecode: { object: string }; deployedBytecode: { object: string } } }>>;
}

const cache = new Map<string, Record<string, CompiledContract>>();

/** The folder of the test contracts' sources. */
export function contractsDir(): string {
  return path.join(repoRoot(), 'test', 'contracts');
}

/** Resolve an import ("@openzeppelin/contracts/...") from node_modules, else relative to test/contracts. */
function findImport(importPath: string): { contents: string } | { error: string } {
  const root = repoRoot();
  const candidates = [path.join(contractsDir(), importPath), path.join(root, 'node_modules', importPath)];
  try {
    candidates.push(require.resolve(importPath, { paths: [root] }));
  } catch {
    // Not a package path; the candidates above are all there is.
  }
  for (const file of candidates) {
    if (existsSync(file)) return { contents: readFileSync(file, 'utf8') };
  }
  return { error: `import not found: ${importPath}` };
}

/** Compile one source file of test/contracts; returns every contract it defines, by name. */
export function compileContracts(fileName: string): Record<string, CompiledContract> {
  const cached = cache.get(fileName);
  if (cached) return cached;
  const solc = require('solc') as SolcJs;
  const input = {
    language: 'Solidity',
    sources: { [fileName]: { content: readFileSync(path.join(contractsDir(), fileName), 'utf8') } },
    settings: {
      // evmVersion is left to solc's default (prague for 0.8.30), which is what the node runs.
      optimizer: { enabled: true, runs: 200 },
      outputSelection: { '*': { '*': ['abi', 'evm.bytecode.object', 'evm.deployedBytecode.object'] } },
    },
  };
  const output = JSON.parse(solc.compile(JSON.stringify(input), { import: findImport })) as SolcOutput;
  const errors = (output.errors ?? []).filter((e) => e.severity === 'error');
  if (errors.length > 0) throw new Error(`solc ${solc.version()} failed:\n${errors.map((e) => e.formattedMessage).join('\n')}`);
  const result: Record<string, CompiledContract> = {};
  for (const [name, c] of Object.entries(output.contracts?.[fileName] ?? {})) {
    result[name] = { abi: c.abi, bytecode: `0x${c.evm.bytecode.object}`, deployedBytecode: `0x${c.evm.deployedBytecode.object}` };
  }
  cache.set(fileName, result);
  return result;
}

/** Compile and return one named contract. */
export function compileContract(fileName: string, contractName: string): CompiledContract {
  const contract = compileContracts(fileName)[contractName];
  if (!contract) throw new Error(`${fileName} defines no contract ${contractName}`);
  return contract;
}

/** The standard JSON input compileContracts builds for `fileName`, every imported source inlined: what a verifier takes. */
export function verificationInput(fileName: string): { language: 'Solidity'; sources: Record<string, { content: string }>; settings: Record<string, unknown> } {
  const solc = require('solc') as SolcJs;
  const sources: Record<string, { content: string }> = { [fileName]: { content: readFileSync(path.join(contractsDir(), fileName), 'utf8') } };
  const settings = { optimizer: { enabled: true, runs: 200 }, outputSelection: { '*': { '*': ['abi'] } } };
  const collect = (p: string) => {
    const found = findImport(p);
    if ('contents' in found) sources[p] = { content: found.contents };
    return found;
  };
  solc.compile(JSON.stringify({ language: 'Solidity', sources, settings }), { import: collect });
  return { language: 'Solidity', sources, settings };
}

/** solc-js's version as a verifier names it (v0.8.30+commit.…). */
export function solcVersion(): string {
  return `v${(require('solc') as SolcJs).version().replace(/\.Emscripten\.clang$/, '')}`;
}
