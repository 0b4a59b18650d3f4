// Every module charges its calls from a gas table of the kernel's one shape (`gasCost` in
// src/modules/kernel/module.ts): each function of its ABI that changes state has its own entry, so
// none falls back to the read functions' `view` cost. Governance's table gives `submit` to the
// submit function of every proposal kind its router holds, as its calls have always been charged.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { Abi } from 'viem';
import { gasCost, type GasTable } from '../src/modules/kernel/module.js';
import { BRIDGE_ABI } from '../src/modules/bridge/messages.js';
import { COMPUTE_ABI } from '../src/modules/compute/messages.js';
import { GOVERNANCE_ABI, governanceGasTable } from '../src/modules/governance/messages.js';
import { governanceProposals } from '../src/modules/governance/proposals.js';
import { RENT_ABI } from '../src/modules/rent/messages.js';
import { STAKING_ABI } from '../src/modules/staking/messages.js';
import { bridge, compute, governance, rent, staking } from '../src/params.js';

const functions = (abi: Abi, view: boolean): string[] => [
  ...new Set(abi.flatMap((f) => (f.type === 'function' && (f.stateMutability === 'view' || f.stateMutability === 'pure') === view ? [f.name] : []))),
];

const tables: [string, Abi, GasTable][] = [
  ['staking', STAKING_ABI, staking.gas],
  ['compute', COMPUTE_ABI, compute.gas],
  ['governance', GOVERNANCE_ABI, governanceGasTable(governance.gas, governanceProposals().submitFunctions())],
  ['bridge', BRIDGE_ABI, bridge.gas],
  ['rent', RENT_ABI, rent.gas],
];

describe('module gas tables', () => {
  for (const [name, abi, table] of tables) {
    it(`${name}: every function that changes state has its own entry; reads cost view`, () => {
      const cost = gasCost(table);
      assert.deepEqual(functions(abi, false).filter((f) => !Object.hasOwn(table, f)), []);
      for (const f of functions(abi, false)) assert.equal(cost(f, false), table[f]);
      for (const f of functions(abi, true)) assert.equal(cost(f, true), table.view);
    });
  }

  it('governance: each proposal kind\'s submit function costs submit, deposit and vote their own', () => {
    const cost = gasCost(governanceGasTable(governance.gas, governanceProposals().submitFunctions()));
    const submits = functions(GOVERNANCE_ABI, false).filter((f) => f.startsWith('submit'));
    assert.equal(submits.length, 5);
    for (const f of submits) assert.equal(cost(f, false), governance.gas.submit);
    assert.equal(cost('deposit', false), governance.gas.deposit);
    assert.equal(cost('vote', false), governance.gas.vote);
    assert.equal(cost('getProposal', true), governance.gas.view);
  });
});
