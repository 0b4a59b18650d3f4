// The core's decode hands back the transaction's call data, so that nothing decodes a raw
// transaction a second time (the app reads a module call's input from it).
import { describe, it, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { privateKeyToAccount } from 'viem/accounts';
import { devAccounts, devGenesis } from '../src/chain/genesis.js';
import { rpc as rpcParams } from '../src/params.js';

const { core } = await import('../src/native/index.js');

describe('DecodedTx.data', () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'svc-decode-data-'));
  const chain = core.Chain.open(dir, devGenesis('devnet'), { rpcGasCap: rpcParams.gasCap, stateHistory: 0 });
  after(() => {
    chain.close();
    rmSync(dir, { recursive: true, force: true });
  });
  const account = privateKeyToAccount(devAccounts()[1]!.privateKey);
  const to = '0x00000000000000000000000000000000000000c0';
  const data = '0xa9059cbb000000000000000000000000000000000000000000000000000000000000dead0000000000000000000000000000000000000000000000000000000000000001';

  it('is the input of every transaction type, empty for a plain transfer, the init code for a creation', async () => {
    const cases: [string, `0x${string}`, `0x${string}`][] = [
      ['legacy', await account.signTransaction({ type: 'legacy', chainId: 9000, nonce: 0, gas: 100_000n, gasPrice: 10n ** 10n, to, data }), data],
      ['eip2930', await account.signTransaction({ type: 'eip2930', chainId: 9000, nonce: 0, gas: 100_000n, gasPrice: 10n ** 10n, to, data, accessList: [] }), data],
      ['eip1559', await account.signTransaction({ type: 'eip1559', chainId: 9000, nonce: 0, gas: 100_000n, maxFeePerGas: 10n ** 10n, maxPriorityFeePerGas: 1n, to, data }), data],
      ['transfer', await account.signTransaction({ type: 'eip1559', chainId: 9000, nonce: 0, gas: 21_000n, maxFeePerGas: 10n ** 10n, maxPriorityFeePerGas: 1n, to, value: 1n }), '0x'],
      ['creation', await account.signTransaction({ type: 'eip1559', chainId: 9000, nonce: 0, gas: 100_000n, maxFeePerGas: 10n ** 10n, maxPriorityFeePerGas: 1n, data: '0x600160005260206000f3' }), '0x600160005260206000f3'],
    ];
    const raws = cases.map(([, raw]) => Buffer.from(raw.slice(2), 'hex'));
    const batch = await chain.decodeTransactions(raws);
    cases.forEach(([name, , expected], i) => {
      const want = Buffer.from(expected.slice(2), 'hex');
      assert.deepEqual(chain.decodeTransaction(raws[i]!).data, want, name);
      assert.deepEqual(batch[i]!.tx!.data, want, `${name} (batch)`);
    });
  });
});
