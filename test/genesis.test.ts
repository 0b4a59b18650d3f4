// Genesis: the dev accounts of the standard test mnemonic, the built-in devnet and testnet genesis
// (no public key funded on testnet), genesis files, and what a real chain database makes of them.
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { mnemonicToAccount } from 'viem/accounts';
import {
  devAccounts,
  devGenesis,
  GenesisFileError,
  GenesisUnavailableError,
  loadGenesisFile,
  parseGenesisJson,
  faucetAccount,
  parseNetworkGenesis,
  resolveGenesis,
  resolveNetworkGenesis,
} from '../src/chain/genesis.js';
import { MULTICALL3_INIT_CODE } from '../src/chain/multicall3.js';
import { bundler as bundlerParams, CHAIN_ID, chain as chainParams, faucet as faucetParams, system as systemParams } from '../src/params.js';
import { bundlerAccount } from '../src/chain/dev-accounts.js';
import type { CoreAddon } from '../src/native/index.js';

/** Accounts 0..9 of `test test … junk` at m/44'/60'/0'/0/i, as Hardhat and anvil print them. */
const PUBLISHED_ADDRESSES = [
  '0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266',
  '0x70997970C51812dc3A010C7d01b50e0d17dc79C8',
  '0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC',
  '0x90F79bf6EB2c4f870365E785982E1f101E93b906',
  '0x15d34AAf54267DB7D7c367839AAf71A00a2C6A65',
  '0x9965507D1a55bcC2695C58ba16FB37d819B0A4dc',
  '0x976EA74026E726554dB657fA54763abd0C3a0aa9',
  '0x14dC79964da2C08b23698B3D3cc7Ca32193d9955',
  '0x23618e81E3f5cdF7f54C3d65f7FBc0aBf5B21E8f',
  '0xa0Ee7A142d267C1f36714E4a8F75612F20a79720',
];
const PUBLISHED_KEY_0 = '0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80';
const PUBLISHED_KEY_1 = '0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d';

const MULTICALL3 = Buffer.from(chainParams.multicall3Address.slice(2), 'hex');
const STAKING = Buffer.from(systemParams.stakingAddress.slice(2), 'hex');
const TREASURY = Buffer.from(systemParams.treasuryAddress.slice(2), 'hex');
const COMPUTE = Buffer.from(systemParams.computeAddress.slice(2), 'hex');
const GOVERNANCE = Buffer.from(systemParams.governanceAddress.slice(2), 'hex');
const BRIDGE = Buffer.from(systemParams.bridgeAddress.slice(2), 'hex');
const RENT = Buffer.from(systemParams.rentAddress.slice(2), 'hex');

/** viem's Multicall3 creation bytecode, read from its sources (viem exports it from no entry point). */
function viemMulticall3Bytecode(): string {
  const require = createRequire(import.meta.url);
  const viemRoot = path.dirname(require.resolve('viem/package.json'));
  const text = readFileSync(path.join(viemRoot, '_esm/constants/contracts.js'), 'utf8');
  const match = /multicall3Bytecode\s*=\s*'(0x[0-9a-f]+)'/.exec(text);
  assert.ok(match, 'multicall3Bytecode not found in viem');
  return match[1]!;
}

function tempDir(prefix: string): string {
  return mkdtempSync(path.join(os.tmpdir(), prefix));
}

describe('dev accounts: the standard test mnemonic at m/44\'/60\'/0\'/0/i', () => {
  it('derives the 10 addresses Hardhat and anvil publish, in order', () => {
    assert.deepEqual(
      devAccounts().map((a) => a.address),
      PUBLISHED_ADDRESSES,
    );
  });

  it('derives the published private keys', () => {
    assert.equal(devAccounts()[0]!.privateKey, PUBLISHED_KEY_0);
    assert.equal(devAccounts()[1]!.privateKey, PUBLISHED_KEY_1);
  });

  it('agrees with viem\'s independent HD derivation for every account', () => {
    for (const account of devAccounts()) {
      const expected = mnemonicToAccount(chainParams.devMnemonic, { addressIndex: account.index });
      assert.equal(account.address, expected.address);
      assert.equal(account.addressBytes.toString('hex'), expected.address.slice(2).toLowerCase());
    }
  });

  it('funds each account with params.chain.devAccountBalance', () => {
    for (const account of devAccounts()) assert.equal(account.balance, 10_000n * 10n ** 18n);
  });
});

describe('built-in genesis of the devnet', () => {
  it('uses chain id 9000 (0x2328) and the gas limit and base fee from params', () => {
    const g = devGenesis('devnet');
    assert.equal(g.chainId, 9000);
    assert.equal(g.chainId, 0x2328);
    assert.equal(g.gasLimit, chainParams.blockGasLimit);
    assert.equal(g.baseFeePerGas, chainParams.genesisBaseFeePerGas);
    assert.equal(g.timestamp, chainParams.genesisTimestamp.devnet);
  });

  it('allocates the 10 dev accounts, Multicall3, the ERC-4337 contracts, the system modules, the faucet and the bundler, sorted by address', () => {
    const g = devGenesis('devnet');
    // 10 dev accounts, Multicall3, the CREATE2 deployer (whose init code creates the EntryPoints and
    // SimpleAccountFactories), 6 system modules, the faucet, the bundler.
    assert.equal(g.alloc.length, 20);
    const bridge = g.alloc.find((a) => a.address.equals(BRIDGE))!;
    assert.equal(bridge.balance, 0n);
    assert.deepEqual(bridge.code, Buffer.from([0xfe]));
    assert.equal(g.alloc.find((a) => a.address.equals(faucetAccount().addressBytes))!.balance, faucetParams.genesisBalance);
    assert.equal(g.alloc.find((a) => a.address.equals(bundlerAccount().addressBytes))!.balance, bundlerParams.genesisBalance);
    const staking = g.alloc.find((a) => a.address.equals(STAKING))!;
    assert.equal(staking.balance, systemParams.devGenesisValidator.selfStake, 'the module holds the genesis self stake');
    assert.deepEqual(staking.code, Buffer.from([0xfe]));
    const treasury = g.alloc.find((a) => a.address.equals(TREASURY))!;
    assert.equal(treasury.balance, 0n);
    assert.deepEqual(treasury.code, Buffer.from([0xfe]));
    const computeModule = g.alloc.find((a) => a.address.equals(COMPUTE))!;
    assert.equal(computeModule.balance, 0n);
    assert.deepEqual(computeModule.code, Buffer.from([0xfe]));
    const governanceModule = g.alloc.find((a) => a.address.equals(GOVERNANCE))!;
    assert.equal(governanceModule.balance, 0n);
    assert.deepEqual(governanceModule.code, Buffer.from([0xfe]));
    const sorted = [...g.alloc].sort((a, b) => Buffer.compare(a.address, b.address));
    assert.deepEqual(g.alloc, sorted);
    for (const account of devAccounts()) {
      const entry = g.alloc.find((a) => a.address.equals(account.addressBytes));
      assert.ok(entry, `${account.address} missing`);
      assert.equal(entry.balance, chainParams.devAccountBalance);
      assert.equal(entry.code, undefined);
    }
  });

  it('deploys Multicall3 at 0xcA11…CA11 from viem\'s canonical creation bytecode', () => {
    const entry = devGenesis('devnet').alloc.find((a) => a.address.equals(MULTICALL3));
    assert.ok(entry);
    assert.equal(MULTICALL3_INIT_CODE, viemMulticall3Bytecode());
    assert.equal(`0x${entry.initCode!.toString('hex')}`, MULTICALL3_INIT_CODE);
  });

  it('is deterministic: the same spec on every call', () => {
    assert.deepEqual(devGenesis('devnet'), devGenesis('devnet'));
  });
});

/** Accounts of the public mnemonic, derived by viem: the 20 Hardhat prints (anvil: the first 10) and the old faucet's index 100. */
const PUBLIC_INDICES = [...Array.from({ length: 20 }, (_, i) => i), faucetParams.derivationIndex];
const PUBLIC_ACCOUNTS = PUBLIC_INDICES.map((index) => ({
  index,
  address: mnemonicToAccount(chainParams.devMnemonic, { addressIndex: index }).address,
}));
const PUBLIC_BYTES = PUBLIC_ACCOUNTS.map((a) => Buffer.from(a.address.slice(2), 'hex'));
const VALIDATOR = '0x00000000000000000000000000000000000a11ce';
const FAUCET = '0x00000000000000000000000000000000000fa0ce';
const testnet = { network: 'testnet' as const, chainId: CHAIN_ID.testnet, validatorAddress: VALIDATOR, faucetAddress: FAUCET };

/** The alloc entries and validators of a genesis that are accounts of the public mnemonic. */
function publicHoldings(g: { spec: { alloc: { address: Buffer; balance: bigint }[] }; validators: { operator: Buffer }[] }): string[] {
  const found: string[] = [];
  for (const [i, bytes] of PUBLIC_BYTES.entries()) {
    const entry = g.spec.alloc.find((a) => a.address.equals(bytes));
    if (entry) found.push(`alloc: public account ${PUBLIC_ACCOUNTS[i]!.index} (${entry.balance} wei)`);
    if (g.validators.some((v) => v.operator.equals(bytes))) found.push(`validator: public account ${PUBLIC_ACCOUNTS[i]!.index}`);
  }
  return found;
}

describe('built-in genesis of the testnet: no public key holds anything', () => {
  it('funds no account of the public test mnemonic (0..19 and the faucet index 100), with or without a faucet', () => {
    assert.deepEqual(publicHoldings(resolveNetworkGenesis(testnet)), []);
    const { faucetAddress: _, ...withoutFaucet } = testnet;
    assert.deepEqual(publicHoldings(resolveNetworkGenesis(withoutFaucet)), []);
  });

  it('registers --validator-address as the genesis validator and funds it and the faucet address, nothing else', () => {
    const { spec, validators } = resolveNetworkGenesis(testnet);
    assert.equal(spec.chainId, 9000);
    assert.equal(validators.length, 1);
    assert.equal(`0x${validators[0]!.operator.toString('hex')}`, VALIDATOR);
    assert.equal(validators[0]!.selfStake, systemParams.devGenesisValidator.selfStake);
    const balanceOf = (address: string) => spec.alloc.find((a) => a.address.equals(Buffer.from(address.slice(2), 'hex')))?.balance;
    assert.equal(balanceOf(VALIDATOR), chainParams.testnetValidatorBalance);
    assert.equal(balanceOf(FAUCET), faucetParams.genesisBalance);
    assert.equal(balanceOf(systemParams.stakingAddress), systemParams.devGenesisValidator.selfStake);
    // The validator, the faucet, Multicall3, the CREATE2 deployer (which creates the ERC-4337 contracts) and the six system modules.
    assert.equal(spec.alloc.length, 10);
    const { faucetAddress: _, ...withoutFaucet } = testnet;
    assert.equal(resolveNetworkGenesis(withoutFaucet).spec.alloc.length, 9, 'no faucet address, no faucet account');
  });

  it('is a function of the configuration: the same settings give the same genesis, other settings another', () => {
    assert.deepEqual(resolveNetworkGenesis(testnet), resolveNetworkGenesis({ ...testnet }));
    assert.notDeepEqual(resolveNetworkGenesis(testnet).spec, resolveNetworkGenesis({ ...testnet, validatorAddress: FAUCET.replace('fa0ce', 'b0b00') }).spec);
    const g = resolveNetworkGenesis(testnet).spec;
    assert.equal(g.timestamp, chainParams.genesisTimestamp.testnet);
    assert.notEqual(g.timestamp, devGenesis('devnet').timestamp);
  });

  it('refuses to build without --validator-address, naming the flag', () => {
    const { validatorAddress: _, ...withoutValidator } = testnet;
    assert.throws(() => resolveNetworkGenesis(withoutValidator), /testnet needs the validator address: pass --validator-address/);
  });

  it('refuses a public account as validator or faucet address, and the faucet at the validator\'s address', () => {
    for (const { index, address } of [PUBLIC_ACCOUNTS[0]!, PUBLIC_ACCOUNTS.at(-1)!]) {
      assert.throws(
        () => resolveNetworkGenesis({ ...testnet, validatorAddress: address }),
        new RegExp(`--validator-address ${address}: account ${index} of the public test mnemonic`),
      );
      assert.throws(
        () => resolveNetworkGenesis({ ...testnet, faucetAddress: address }),
        new RegExp(`--faucet-address ${address}: account ${index} of the public test mnemonic`),
      );
    }
    assert.throws(() => resolveNetworkGenesis({ ...testnet, faucetAddress: VALIDATOR }), /is also --validator-address/);
  });

  it('refuses faucet settings on devnet and mainnet', () => {
    assert.throws(() => resolveNetworkGenesis({ network: 'devnet', chainId: CHAIN_ID.devnet, faucetAddress: FAUCET }), /are for testnet/);
    assert.throws(() => resolveNetworkGenesis({ network: 'mainnet', chainId: CHAIN_ID.mainnet, faucetAddress: FAUCET }), /mainnet has no faucet/);
  });
});

describe('genesis files of testnet and mainnet: no public key', () => {
  const dir = tempDir('svc-genesis-public-');
  after(() => rmSync(dir, { recursive: true, force: true }));
  const write = (name: string, json: unknown): string => {
    const file = path.join(dir, name);
    writeFileSync(file, JSON.stringify(json));
    return file;
  };
  const validator = (operator: string) => ({ operator, moniker: 'v', selfStake: '1', commissionBps: 0, maxCommissionBps: 0, maxChangeBpsPerDay: 0 });

  for (const network of ['testnet', 'mainnet'] as const) {
    const chainId = CHAIN_ID[network];
    it(`${network}: refuses a file that funds any public account (0..19, 100) or registers one as validator`, () => {
      for (const { index, address } of PUBLIC_ACCOUNTS) {
        const funds = write(`${network}-alloc-${index}.json`, { chainId, timestamp: 1, alloc: { [address]: { balance: '1' } } });
        assert.throws(
          () => resolveNetworkGenesis({ network, chainId, genesisFile: funds, validatorAddress: VALIDATOR }),
          (err: unknown) => err instanceof GenesisFileError && err.message.includes(`alloc holds ${address}: account ${index} of the public test mnemonic`),
          `${network} accepted public account ${index} in alloc`,
        );
      }
      const registers = write(`${network}-validator.json`, { chainId, timestamp: 1, alloc: {}, validators: [validator(PUBLIC_ACCOUNTS[0]!.address)] });
      assert.throws(
        () => resolveNetworkGenesis({ network, chainId, genesisFile: registers, validatorAddress: VALIDATOR }),
        /validators lists 0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266: account 0 of the public test mnemonic/,
      );
    });
  }

  it('devnet keeps accepting a file that funds the dev accounts', () => {
    const file = write('devnet.json', { chainId: 9000, timestamp: 1, alloc: { [PUBLIC_ACCOUNTS[0]!.address]: { balance: '1' } } });
    const g = resolveNetworkGenesis({ network: 'devnet', chainId: 9000, genesisFile: file });
    assert.equal(g.spec.alloc.find((a) => a.address.equals(PUBLIC_BYTES[0]!))!.balance, 1n);
  });
});

describe('mainnet genesis', () => {
  it('refuses to start without a genesis file, naming the flag', () => {
    assert.throws(
      () => resolveGenesis({ network: 'mainnet', chainId: CHAIN_ID.mainnet }),
      (err: unknown) => err instanceof GenesisUnavailableError && /--genesis <file>/.test(err.message),
    );
  });

  it('holds exactly the file\'s allocation plus Multicall3, with no dev accounts', () => {
    const dir = tempDir('svc-genesis-');
    try {
      const file = path.join(dir, 'mainnet.json');
      writeFileSync(
        file,
        JSON.stringify({
          chainId: CHAIN_ID.mainnet,
          timestamp: 1767225600,
          extraData: '0x737663',
          alloc: {
            '0x1111111111111111111111111111111111111111': { balance: '1000000000000000000000' },
            '2222222222222222222222222222222222222222': {
              balance: '0x10',
              nonce: 1,
              code: '0x6000',
              storage: { '0x01': '0x2a' },
            },
          },
        }),
      );
      const g = resolveGenesis({ network: 'mainnet', chainId: CHAIN_ID.mainnet, genesisFile: file });
      assert.equal(g.chainId, 9001);
      assert.equal(g.timestamp, 1767225600);
      assert.equal(g.gasLimit, chainParams.blockGasLimit);
      assert.equal(g.extraData.toString(), 'svc');
      // The file's two accounts, Multicall3, and the staking, treasury, compute, governance, bridge and rent accounts (empty: no validators given).
      assert.equal(g.alloc.length, 9);
      assert.ok(g.alloc[0]!.address.equals(STAKING) && g.alloc[0]!.balance === 0n);
      assert.ok(g.alloc[1]!.address.equals(TREASURY));
      assert.ok(g.alloc[2]!.address.equals(COMPUTE) && g.alloc[2]!.balance === 0n);
      assert.ok(g.alloc[3]!.address.equals(GOVERNANCE) && g.alloc[3]!.balance === 0n);
      assert.ok(g.alloc[4]!.address.equals(BRIDGE) && g.alloc[4]!.balance === 0n);
      assert.ok(g.alloc[5]!.address.equals(RENT) && g.alloc[5]!.balance === 0n);
      assert.equal(g.alloc[6]!.balance, 10n ** 21n);
      const second = g.alloc[7]!;
      assert.equal(second.balance, 16n);
      assert.equal(second.nonce, 1n);
      assert.equal(second.code!.toString('hex'), '6000');
      assert.equal(second.storage![0]!.slot.toString('hex'), '00'.repeat(31) + '01');
      assert.equal(second.storage![0]!.value.toString('hex'), '00'.repeat(31) + '2a');
      assert.ok(g.alloc[8]!.address.equals(MULTICALL3));
      for (const account of devAccounts()) assert.ok(!g.alloc.some((a) => a.address.equals(account.addressBytes)));
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('keeps a file\'s own entry at the Multicall3 address instead of adding one', () => {
    const g = parseGenesisJson(
      { chainId: 9001, timestamp: 1, alloc: { [chainParams.multicall3Address]: { balance: '5' } } },
      9001,
      'inline',
    );
    const own = g.alloc.filter((a) => ![STAKING, TREASURY, COMPUTE, GOVERNANCE, BRIDGE, RENT].some((m) => a.address.equals(m)));
    assert.equal(own.length, 1);
    assert.equal(own[0]!.balance, 5n);
    assert.equal(own[0]!.initCode, undefined);
  });

  it('takes an alloc entry\'s creation code ("initCode", run at genesis) and refuses it beside "code"', () => {
    const address = '0x1111111111111111111111111111111111111111';
    const g = parseGenesisJson({ chainId: 9001, timestamp: 1, alloc: { [address]: { balance: '0', initCode: '0x60006000f3' } } }, 9001, 'inline');
    const entry = g.alloc.find((a) => a.address.equals(Buffer.from(address.slice(2), 'hex')))!;
    assert.equal(entry.initCode!.toString('hex'), '60006000f3');
    assert.equal(entry.code, undefined);
    assert.throws(
      () => parseGenesisJson({ chainId: 9001, timestamp: 1, alloc: { [address]: { code: '0x00', initCode: '0x00' } } }, 9001, 'inline'),
      (err: unknown) => err instanceof GenesisFileError && err.message.includes('give "code" or "initCode", not both'),
    );
  });

  it('registers the file\'s validators and mints their self stakes to the staking module', () => {
    const operator = '0x3333333333333333333333333333333333333333';
    const { spec, validators } = parseNetworkGenesis(
      {
        chainId: 9001,
        timestamp: 1,
        alloc: {},
        validators: [{ operator, moniker: 'v1', selfStake: '5000', commissionBps: 500, maxCommissionBps: 2000, maxChangeBpsPerDay: 100 }],
      },
      9001,
      'inline',
    );
    assert.equal(validators.length, 1);
    assert.equal(validators[0]!.selfStake, 5000n);
    assert.equal(spec.alloc.find((a) => a.address.equals(STAKING))!.balance, 5000n);
  });

  it('refuses an allocation at a system module address', () => {
    assert.throws(
      () => parseGenesisJson({ chainId: 9001, timestamp: 1, alloc: { [systemParams.stakingAddress]: { balance: '1' } } }, 9001, 'inline'),
      /system module's address/,
    );
  });
});

describe('genesis files: bad input gets a clear error', () => {
  const cases: [string, unknown, RegExp][] = [
    ['a non-object', [], /expected a JSON object/],
    ['a wrong chain id', { chainId: 1, timestamp: 0, alloc: {} }, /chainId is 1, this network's chain id is 9001/],
    ['a missing timestamp', { chainId: 9001, alloc: {} }, /"timestamp" is required/],
    ['an unknown field', { chainId: 9001, timestamp: 0, alloc: {}, difficulty: 1 }, /unknown field "difficulty"/],
    ['a bad alloc address', { chainId: 9001, timestamp: 0, alloc: { '0x12': {} } }, /alloc key 0x12/],
    ['a negative balance', { chainId: 9001, timestamp: 0, alloc: { ['0x' + '11'.repeat(20)]: { balance: -1 } } }, /balance/],
    ['odd-length code', { chainId: 9001, timestamp: 0, alloc: { ['0x' + '11'.repeat(20)]: { code: '0x123' } } }, /code/],
    ['extraData over 32 bytes', { chainId: 9001, timestamp: 0, extraData: '0x' + '00'.repeat(33), alloc: {} }, /at most 32/],
    ['a zero gas limit', { chainId: 9001, timestamp: 0, gasLimit: 0, alloc: {} }, /gasLimit/],
  ];
  for (const [what, json, message] of cases) {
    it(`rejects ${what}`, () => {
      assert.throws(
        () => parseGenesisJson(json, 9001, 'test.json'),
        (err: unknown) => err instanceof GenesisFileError && message.test(err.message) && err.message.startsWith('genesis file test.json: '),
      );
    });
  }

  it('rejects a file that does not exist or is not JSON', () => {
    const dir = tempDir('svc-genesis-');
    try {
      assert.throws(() => loadGenesisFile(path.join(dir, 'absent.json'), 9001), /cannot read it \(ENOENT\)/);
      const file = path.join(dir, 'broken.json');
      writeFileSync(file, '{ not json');
      assert.throws(() => loadGenesisFile(file, 9001), /not valid JSON/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('genesis in a real chain database', () => {
  let core: CoreAddon;
  const dirs: string[] = [];
  const options = { rpcGasCap: 50_000_000, stateHistory: 0 };
  const open = (dir?: string) => {
    const d = dir ?? tempDir('svc-chain-');
    if (!dir) dirs.push(d);
    return { dir: d, chain: core.Chain.open(d, devGenesis('devnet'), options) };
  };

  before(async () => {
    ({ core } = await import('../src/native/index.js'));
  });
  after(() => {
    for (const d of dirs) rmSync(d, { recursive: true, force: true });
  });

  it('gives the same genesis hash in two databases and across a reopen', () => {
    const a = open();
    const b = open();
    try {
      assert.equal(a.chain.head().number, 0);
      assert.deepEqual(a.chain.head().hash, b.chain.head().hash);
      assert.equal(a.chain.head().gasLimit, chainParams.blockGasLimit);
      assert.equal(a.chain.head().baseFeePerGas, chainParams.genesisBaseFeePerGas);
      assert.equal(a.chain.head().timestamp, chainParams.genesisTimestamp.devnet);
    } finally {
      b.chain.close();
    }
    const hash = a.chain.head().hash;
    a.chain.close();
    const again = open(a.dir);
    try {
      assert.deepEqual(again.chain.head().hash, hash);
    } finally {
      again.chain.close();
    }
  });

  it('funds the dev accounts and deploys a working Multicall3', async () => {
    const { chain } = open();
    try {
      for (const account of devAccounts()) {
        const state = chain.getAccount(account.addressBytes, 0);
        assert.equal(state.balance, chainParams.devAccountBalance);
        assert.equal(state.nonce, 0n);
      }
      assert.ok(chain.getCode(MULTICALL3, 0).length > 0, 'Multicall3 has no code');
      // getChainId() of Multicall3 returns block.chainid.
      const result = await chain.call({ to: MULTICALL3, data: Buffer.from('3408e470', 'hex') }, 0);
      assert.equal(result.status, 'success');
      assert.equal(BigInt(`0x${result.output.toString('hex')}`), 9000n);
    } finally {
      chain.close();
    }
  });
});

describe('a genesis file\'s bridge', () => {
  const validator = { operator: '0x3333333333333333333333333333333333333333', moniker: 'v', selfStake: '1000', commissionBps: 0, maxCommissionBps: 0, maxChangeBpsPerDay: 0 };
  const parse = (bridge: unknown, validators: unknown[] = [validator]) =>
    parseNetworkGenesis({ chainId: 9001, timestamp: 1, alloc: {}, validators, bridge }, 9001, 'inline');

  it('reads the external chain, the contract, the confirmations and the deployment block', () => {
    const g = parse({ chainId: 1, contract: '0x5FbDB2315678afecb367f032d93F642f64180aa3', confirmations: 64, fromBlock: 19_000_000 });
    assert.deepEqual(g.bridge, { chainId: 1, contract: '0x5fbdb2315678afecb367f032d93f642f64180aa3', confirmations: 64, fromBlock: 19_000_000 });
    assert.equal(parse({ chainId: 1, contract: '0x5FbDB2315678afecb367f032d93F642f64180aa3' }).bridge!.confirmations, 12, 'the default');
    assert.equal(parse(undefined).bridge, undefined);
  });

  it('refuses a bridge to its own chain, without validators, with a bad contract, count or field', () => {
    const contract = '0x5FbDB2315678afecb367f032d93F642f64180aa3';
    assert.throws(() => parse({ chainId: 9001, contract }), /bridge.chainId is this chain's own id/);
    assert.throws(() => parse({ chainId: 1, contract }, []), /"bridge" needs "validators"/);
    assert.throws(() => parse({ chainId: 1, contract: '0x12' }), /bridge.contract/);
    assert.throws(() => parse({ chainId: 1, contract, confirmations: 0 }), /bridge.confirmations must be a whole number of at least 1/);
    assert.throws(() => parse({ chainId: 1.5, contract }), /bridge.chainId must be a whole number/);
    assert.throws(() => parse({ chainId: 1, contract, relayer: 'x' }), /bridge: unknown field "relayer"/);
    assert.throws(() => parse('yes'), /"bridge" must be an object/);
  });
});

describe('a genesis file\'s staking rules: the downtime window and threshold', () => {
  const validator = { operator: '0x3333333333333333333333333333333333333333', moniker: 'v', selfStake: '1000000000000000000000', commissionBps: 0, maxCommissionBps: 0, maxChangeBpsPerDay: 0 };
  const parse = (staking: unknown, chainId = 9001) =>
    parseNetworkGenesis({ chainId, timestamp: 1, alloc: {}, validators: [validator], ...(staking === undefined ? {} : { staking }) }, chainId, 'inline');

  it('reads them, within the ranges governance may set them to', () => {
    assert.deepEqual(parse({ signedBlocksWindow: 20, minSignedPerWindowBps: 9_000 }).staking, { signedBlocksWindow: 20, minSignedPerWindowBps: 9_000 });
    assert.equal(parse(undefined).staking, undefined);
    assert.throws(() => parse({ signedBlocksWindow: 5 }), /staking.signedBlocksWindow must be a whole number in \[10, 10000\]/);
    assert.throws(() => parse({ minSignedPerWindowBps: 10_001 }), /staking.minSignedPerWindowBps must be a whole number in \[0, 10000\]/);
    assert.throws(() => parse({ signedBlocksWindow: '20' }), /staking.signedBlocksWindow/);
    assert.throws(() => parse({ epochLengthBlocks: 5 }), /staking: unknown field "epochLengthBlocks"/);
    assert.throws(() => parse([]), /"staking" must be an object/);
  });

  it('are the rules the chain runs by on every node that opens the genesis, over the node\'s own', async () => {
    const [{ core }, { ChainApp, appGenesis }, { Mempool }, { createNodeEvents }, { pino }, { staking: stakingParams }] = await Promise.all([
      import('../src/native/index.js'),
      import('../src/chain/app.js'),
      import('../src/chain/mempool.js'),
      import('../src/chain/events.js'),
      import('pino'),
      import('../src/params.js'),
    ]);
    const g = parse({ signedBlocksWindow: 20, minSignedPerWindowBps: 9_000 }, CHAIN_ID.devnet);
    const dir = tempDir('svc-genesis-staking-');
    const chain = core.Chain.open(dir, g.spec, { rpcGasCap: 50_000_000, stateHistory: 0 });
    try {
      const mempool = new Mempool({ chain, chainId: CHAIN_ID.devnet, events: createNodeEvents() });
      const app = new ChainApp(chain, mempool, stakingParams, appGenesis(g), pino({ level: 'silent' }));
      assert.equal(app.live.staking.signedBlocksWindow, 20);
      assert.equal(app.live.staking.minSignedPerWindowBps, 9_000);
      assert.equal(app.live.value('staking.signedBlocksWindow'), 20n, 'governance starts from the genesis value');
      assert.equal(stakingParams.signedBlocksWindow, 100, 'the node\'s defaults are untouched');
    } finally {
      chain.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
