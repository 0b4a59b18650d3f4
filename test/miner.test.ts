// svc-miner's mining mode: wallet generation and key checks (the compiled CLI), the mining loop
// driven in-process against a stand-in validator with a stand-in model engine (no libtorch
// needed), and the real program with the inference addon and svc-embed-small against the same
// stand-in validator (skipped where the addon or the model files are absent; failed in CI).
import { describe, it, after } from 'node:test';
import assert from 'node:assert/strict';
import type { ChildProcessWithoutNullStreams } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ed25519 } from '@noble/curves/ed25519.js';
import { recoverMessageAddress } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import {
  bytesOf, hexOf, inputHash, outputHash, proofMessage, registrationMessage, walletKeyOf,
  type Hex, type InferenceProofJson, type MinerRegistrationJson, type TaskJson,
} from '../src/modules/compute/wire.js';
import { inferenceAddon, type HardwareInfo, type InferenceOutput, type ModelInfo } from '../src/native/inference.js';
import { servableModels, type InferenceEngine, type ModelRunner } from '../src/miner/engine.js';
import type { FilePins } from '../src/inference/pins.js';
import { MAX_PROOFS_PER_TASK, Miner, MinerConfigError } from '../src/miner/miner.js';
import { ModelCache } from '../src/miner/model-cache.js';
import { RpcClient, type ApprovedModelJson } from '../src/miner/rpc-client.js';
import { initialStats, statusText, type MinerReporter, type MinerStats } from '../src/miner/status.js';
import { deriveKeys, generateWallet, minerKeys } from '../src/miner/wallet.js';
import { SMALL, missingInferenceAddon, missingSmallModel, requireOrSkip, testModelDir } from './support/inference.js';
import { SVC_MINER, spawnCli, type CliProcess } from './support/cli-process.js';

const CHAIN_ID = 9000;
const VALIDATOR: Hex = '0x00000000000000000000000000000000000000aa';
const MEDIUM = 'svc-embed-medium@v1.0';
const CLASSIFY = 'svc-classify-small@v1.0';

// ---------------------------------------------------------------------------------------------
// Processes

const children: ChildProcessWithoutNullStreams[] = [];
after(() => {
  for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
});

function start(args: string[], env: Record<string, string> = {}): CliProcess {
  const p = spawnCli(SVC_MINER, args, env);
  children.push(p.child);
  return p;
}

async function run(args: string[], env: Record<string, string> = {}): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const r = start(args, env);
  const timer = setTimeout(() => r.child.kill('SIGKILL'), 30_000);
  const code = await r.exit;
  clearTimeout(timer);
  return { code, stdout: r.stdout(), stderr: r.stderr() };
}

async function waitFor(what: string, cond: () => boolean, timeoutMs = 30_000, detail: () => string = () => ''): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!cond()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}\n${detail()}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** A port nothing listens on (bound, then released). */
async function closedPort(): Promise<number> {
  const s = createServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  const port = (s.address() as AddressInfo).port;
  await new Promise<void>((r) => s.close(() => r()));
  return port;
}

// ---------------------------------------------------------------------------------------------
// A stand-in validator: the svc_* inference methods as the miner sees them.

class FakeValidator {
  readonly registrations: MinerRegistrationJson[] = [];
  readonly proofs: InferenceProofJson[] = [];
  readonly calls: string[] = [];
  tasks: TaskJson[] = [];
  /** task id -> rejection reason (-32003). */
  readonly reject = new Map<string, string>();
  /** Tasks with an accepted proof: no longer listed, as the node hides them (queued, then completed). */
  private readonly held = new Set<string>();
  /** Answer the next N requests with HTTP 503. */
  failNext = 0;
  /** svc_getApprovedModels' answer; null: the method is not served (an older node). */
  approved: ApprovedModelJson[] | null = null;
  block = 100;
  private appliesAt = new Map<string, number>();
  private server: Server;
  url = '';

  constructor() {
    this.server = createServer((req, res) => {
      let body = '';
      req.on('data', (d: Buffer) => (body += d.toString()));
      req.on('end', () => {
        if (this.failNext > 0) {
          this.failNext -= 1;
          res.writeHead(503).end('busy');
          return;
        }
        const msg = JSON.parse(body) as { id: unknown; method: string; params: unknown[] };
        this.calls.push(msg.method);
        const reply = (payload: object) => {
          res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ jsonrpc: '2.0', id: msg.id, ...payload }));
        };
        try {
          reply(this.answer(msg.method, msg.params));
        } catch (e) {
          reply({ error: e as object });
        }
      });
    });
  }

  async start(): Promise<string> {
    await new Promise<void>((r) => this.server.listen(0, '127.0.0.1', r));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
    return this.url;
  }

  async stop(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((r) => this.server.close(() => r()));
  }

  /** The node forgets the miner (as after a restart): it must register again. */
  forget(): void {
    this.appliesAt.clear();
  }

  /** Registered miners fall inactive (no registration or proof for a few epochs): they must register again. */
  private lapsed = new Set<string>();
  lapse(): void {
    for (const w of this.appliesAt.keys()) this.lapsed.add(w);
  }

  /** The node loses the accepted proof of a task (a restart before a block took it): the task is listed again. */
  lose(taskId: string): void {
    this.held.delete(taskId);
  }

  count(method: string): number {
    return this.calls.filter((c) => c === method).length;
  }

  private status(wallet: string): 'unregistered' | 'active' | 'inactive' {
    const at = this.appliesAt.get(wallet.toLowerCase());
    if (at === undefined || this.block < at) return 'unregistered';
    return this.lapsed.has(wallet.toLowerCase()) ? 'inactive' : 'active';
  }

  private answer(method: string, params: unknown[]): object {
    switch (method) {
      case 'eth_chainId':
        return { result: `0x${CHAIN_ID.toString(16)}` };
      case 'svc_registerMiner': {
        const reg = params[0] as MinerRegistrationJson;
        this.registrations.push(reg);
        this.appliesAt.set(reg.wallet.toLowerCase(), this.block + 1);
        this.lapsed.delete(reg.wallet.toLowerCase());
        return { result: { wallet: reg.wallet, public_key: reg.public_key, status: 'pending', appliesAtBlock: this.block + 1 } };
      }
      case 'svc_getInferenceTasks': {
        this.block += 1;
        const wallet = (params[0] as { miner: string }).miner;
        const status = this.status(wallet);
        // A rejected task stays listed: the miner itself must not submit it twice.
        return {
          result: {
            validator: VALIDATOR, chainId: CHAIN_ID, blockNumber: this.block, epoch: Math.floor(this.block / 10),
            nextEpochBlock: (Math.floor(this.block / 10) + 1) * 10,
            miner: { status, jailedUntil: 0, tier: 'Cold', models: [SMALL] },
            tasks: status === 'active' ? this.tasks.filter((x) => !this.held.has(x.task_id)) : [],
          },
        };
      }
      case 'svc_submitInferenceProof': {
        const proof = params[0] as InferenceProofJson;
        this.proofs.push(proof);
        const reason = this.reject.get(proof.task_id);
        if (reason) throw { code: -32003, message: 'Transaction rejected', data: { reason } };
        this.held.add(proof.task_id);
        return { result: { proof_id: hexOf(Buffer.alloc(32, this.proofs.length)), status: 'pending', flops: String(proof.flops) } };
      }
      case 'svc_getApprovedModels':
        if (this.approved === null) throw { code: -32601, message: 'Method not found' };
        return { result: this.approved };
      case 'svc_getInferenceMiner': {
        const accepted = this.proofs.filter((p) => !this.reject.has(p.task_id)).length;
        return {
          result: {
            wallet: params[0], registered: this.appliesAt.size > 0, status: 'active', tasksCompleted: String(accepted),
            proofsAccepted: String(accepted), rewards: `0x${(BigInt(accepted) * 10n ** 17n).toString(16)}`,
          },
        };
      }
      default:
        throw { code: -32601, message: 'Method not found' };
    }
  }
}

function task(n: number, input: string, model = SMALL): TaskJson {
  return { task_id: hexOf(Buffer.alloc(32, n)), kind: 'public', model_id: model, input, input_hash: hexOf(inputHash(input)) };
}

function assertRegistrationSigned(reg: MinerRegistrationJson, wallet: string): Promise<void> {
  assert.equal(reg.wallet.toLowerCase(), wallet.toLowerCase());
  const message = registrationMessage({
    chainId: CHAIN_ID, wallet: bytesOf(reg.wallet), publicKey: bytesOf(reg.public_key), tier: reg.tier, models: reg.models, sequence: reg.sequence,
  });
  assert.ok(ed25519.verify(bytesOf(reg.signature), message, bytesOf(reg.public_key)), 'registration Ed25519 signature');
  return recoverMessageAddress({ message: { raw: message }, signature: reg.wallet_signature }).then((signer) => {
    assert.equal(signer.toLowerCase(), wallet.toLowerCase(), 'registration wallet signature');
  });
}

function assertProofSigned(p: InferenceProofJson, publicKey: string): void {
  const message = proofMessage({
    chainId: CHAIN_ID, taskId: bytesOf(p.task_id), validator: bytesOf(p.validator), miner: bytesOf(p.miner), modelId: p.model_id,
    inputHash: bytesOf(p.input_hash), outputHash: bytesOf(p.output_hash), executionTimeMs: p.execution_time_ms, flops: p.flops,
  });
  assert.equal(p.public_key, publicKey);
  assert.ok(ed25519.verify(bytesOf(p.signature), message, bytesOf(p.public_key)), `proof signature of ${p.task_id}`);
  assert.equal(p.output_hash, hexOf(outputHash(p.model_id, bytesOf(p.input_hash), bytesOf(p.quantized))));
}

// ---------------------------------------------------------------------------------------------

describe('svc-miner --generate-wallet', () => {
  it('prints a key whose derived wallet and public key match, different each run', async () => {
    const a = await run(['--generate-wallet']);
    const b = await run(['--generate-wallet']);
    assert.equal(a.code, 0, a.stderr);
    const w = JSON.parse(a.stdout) as { address: Hex; privateKey: Hex; publicKey: Hex; walletKey: Hex };
    assert.deepEqual(Object.keys(w).sort(), ['address', 'privateKey', 'publicKey', 'walletKey']);
    assert.match(w.privateKey, /^0x[0-9a-f]{64}$/);
    const seed = bytesOf(w.privateKey);
    assert.equal(w.walletKey, walletKeyOf(seed));
    assert.equal(w.address, privateKeyToAccount(walletKeyOf(seed)).address);
    assert.equal(w.publicKey, hexOf(ed25519.getPublicKey(seed)));
    assert.match(a.stderr, /privateKey/);
    assert.match(a.stderr, /only secret/);
    const w2 = JSON.parse(b.stdout) as { privateKey: Hex; address: Hex };
    assert.notEqual(w2.privateKey, w.privateKey);
    assert.notEqual(w2.address, w.address);
  });
});

describe('svc-miner keys', () => {
  const w = generateWallet();

  it('needs --wallet and --private-key', async () => {
    const none = await run(['--backend', 'cpu']);
    assert.equal(none.code, 2);
    assert.match(none.stderr, /mining needs --wallet \(SVC_MINER_WALLET\) and --private-key \(SVC_MINER_PRIVATE_KEY\)/);
    const noKey = await run(['--wallet', w.address]);
    assert.equal(noKey.code, 2);
    assert.match(noKey.stderr, /mining needs --private-key/);
    const noWallet = await run(['--private-key', w.privateKey]);
    assert.equal(noWallet.code, 2);
    assert.match(noWallet.stderr, /mining needs --wallet/);
  });

  it('refuses a wallet that is not the one derived from the key, and says how it is derived', async () => {
    const other = generateWallet();
    const r = await run(['--wallet', other.address, '--private-key', w.privateKey]);
    assert.equal(r.code, 2);
    assert.match(r.stderr, /is not the wallet of this --private-key/);
    assert.ok(r.stderr.includes(w.address), 'names the derived wallet');
    assert.match(r.stderr, /--generate-wallet/);
    const bad = await run(['--wallet', w.address, '--private-key', '0x1234']);
    assert.equal(bad.code, 2);
    assert.match(bad.stderr, /32 bytes/);
  });

  it('accepts the derived wallet in any letter case', () => {
    assert.equal(minerKeys(w.privateKey, w.address.toLowerCase()).address, w.address);
    assert.equal(minerKeys(w.privateKey.slice(2), w.address).publicKey, w.publicKey);
  });
});

// ---------------------------------------------------------------------------------------------
// The loop, in-process, with a stand-in engine.

function fakeModel(id: string, tier: ModelInfo['tier'], minMemoryMb: number, pinned = true): ModelInfo {
  return {
    id, task: 'text-embedding', layers: 1, hidden: 8, heads: 1, dims: 8, maxSeqLen: 16, pooling: 'mean', parameters: 1,
    sizeMb: 1, minMemoryMb, tier, hubRepo: 'x/y', hubRevision: 'r',
    files: [{ name: 'model.safetensors', url: 'u', ...(pinned ? { sha256: 'ab' } : {}) }],
  };
}

const FAKE_MODELS = [fakeModel(SMALL, 'Cold', 512), fakeModel(MEDIUM, 'Cold', 512, false), fakeModel(CLASSIFY, 'Warm', 2048)];

class FakeEngine implements InferenceEngine {
  readonly loads: string[] = [];
  /** The pins each load was given (null: the registry's). */
  readonly loadPins: (FilePins | null)[] = [];
  readonly batches: { model: string; inputs: string[] }[] = [];
  constructor(readonly hardware: HardwareInfo, readonly models: ModelInfo[] = FAKE_MODELS) {}
  listModels(): ModelInfo[] {
    return this.models;
  }
  detectHardware(): HardwareInfo {
    return this.hardware;
  }
  async load(model: ModelInfo, pins?: FilePins | null): Promise<ModelRunner> {
    this.loads.push(model.id);
    this.loadPins.push(pins ?? null);
    return {
      infer: async (inputs) => {
        this.batches.push({ model: model.id, inputs });
        return inputs.map((input): InferenceOutput => {
          const quantized = Int8Array.from({ length: 8 }, (_, i) => ((input.length * 7 + i * 13) % 255) - 127);
          const ih = inputHash(input);
          return {
            modelId: model.id, dims: 8, vector: Float32Array.from(quantized, (q) => q / 127), quantized,
            inputHash: ih, outputHash: outputHash(model.id, ih, new Uint8Array(quantized.buffer)), tokens: 3, flops: 12345,
          };
        });
      },
    };
  }
}

const COLD: HardwareInfo = { backend: 'cpu', accelerator: 'none', systemMemoryMb: 8000, tier: 'Cold', loadableModels: [SMALL, MEDIUM] };
const WARM: HardwareInfo = { backend: 'cuda', accelerator: 'discrete', systemMemoryMb: 8000, tier: 'Warm', loadableModels: [SMALL, MEDIUM, CLASSIFY] };

class Recorder implements MinerReporter {
  current: MinerStats = initialStats();
  readonly states: string[] = [];
  readonly lines: string[] = [];
  update(change: Partial<MinerStats>): void {
    this.current = { ...this.current, ...change };
    const text = statusText(this.current);
    if (this.states.at(-1) !== text) this.states.push(text);
  }
  stats(): MinerStats {
    return { ...this.current };
  }
  debug(): void {}
  info(message: string): void {
    this.lines.push(message);
  }
}

describe('the mining loop', () => {
  it('registers, proves each task once in one batch per model, survives rejections, re-registers and backs off', async () => {
    const node = new FakeValidator();
    const url = await node.start();
    const keys = deriveKeys(bytesOf(generateWallet().privateKey));
    const engine = new FakeEngine(WARM);
    const reporter = new Recorder();
    const miner = new Miner({
      keys, rpc: new RpcClient(url), engine, reporter, pollIntervalMs: 20, backoff: { initialMs: 10, maxMs: 40 },
    });
    try {
      assert.deepEqual(miner.models, [SMALL, CLASSIFY], 'pinned models of the tier');
      node.tasks = [task(1, 'one'), task(2, 'two', CLASSIFY), task(3, 'three'), task(4, 'four', MEDIUM)];
      node.reject.set(task(1, 'one').task_id, 'NOT_ASSIGNED');
      const running = miner.run();
      await waitFor('three proofs', () => node.proofs.length >= 3);
      const polls = node.count('svc_getInferenceTasks');
      await waitFor('more polls', () => node.count('svc_getInferenceTasks') >= polls + 5);
      assert.equal(node.proofs.length, 3, 'no task submitted twice; the unregistered model never');
      assert.deepEqual(node.proofs.map((p) => p.task_id).sort(), [task(1, 'one'), task(2, 'two'), task(3, 'three')].map((t) => t.task_id).sort());
      for (const p of node.proofs) assertProofSigned(p, keys.publicKey);
      assert.equal(node.registrations.length, 1);
      await assertRegistrationSigned(node.registrations[0]!, keys.address);
      assert.deepEqual(node.registrations[0]!.models, [SMALL, CLASSIFY]);
      assert.equal(node.registrations[0]!.tier, 'Warm');
      assert.deepEqual(engine.loads.sort(), [CLASSIFY, SMALL], 'never loads a model it did not register');
      assert.deepEqual(engine.batches.find((b) => b.model === SMALL)!.inputs, ['one', 'three'], 'one batch per model');
      const s = reporter.stats();
      assert.equal(s.tasksDone, 2);
      assert.equal(s.proofsRejected, 1);
      assert.equal(s.proofsAccepted, 2n);
      assert.equal(s.rewardsWei, 2n * 10n ** 17n);
      assert.ok(reporter.lines.some((l) => /rejected: NOT_ASSIGNED/.test(l)));

      // A restarted node: the miner registers again; a new task is proven.
      node.forget();
      node.tasks = [...node.tasks, task(5, 'five')];
      await waitFor('a second registration', () => node.registrations.length === 2);
      await waitFor('the new task', () => node.proofs.some((p) => p.task_id === task(5, 'five').task_id));
      assert.ok(node.registrations[1]!.sequence > node.registrations[0]!.sequence);

      // Fallen inactive on chain (after a jail, or a long outage): it registers again and gets tasks.
      node.lapse();
      node.tasks = [...node.tasks, task(7, 'seven')];
      await waitFor('a registration after falling inactive', () => node.registrations.length === 3);
      await waitFor('the task after it', () => node.proofs.some((p) => p.task_id === task(7, 'seven').task_id));
      assert.ok(node.registrations[2]!.sequence > node.registrations[1]!.sequence);

      // An overloaded node (HTTP 503): the miner retries with backoff, then goes on.
      node.failNext = 4;
      node.tasks = [...node.tasks, task(6, 'six')];
      await waitFor('the task after the outage', () => node.proofs.some((p) => p.task_id === task(6, 'six').task_id));
      assert.ok(reporter.states.some((t) => /^retrying \(validator unreachable/.test(t)), 'said it was retrying');
      assert.match(reporter.stats().state, /mining/);
      assert.equal(new Set(node.proofs.map((p) => p.task_id)).size, node.proofs.length);
      // The miner reads its earnings after each round of proofs: wait for the last round's.
      await waitFor('earnings after the last proof', () => reporter.stats().proofsAccepted === 5n);

      await miner.stop();
      await running;
      assert.equal(reporter.stats().state, 'stopped');
      assert.match(miner.summary(), /5 tasks done, 5 proofs accepted, 1 rejected, earned 0\.5 SVC/);
    } finally {
      await miner.stop();
      await node.stop();
    }
  });

  it('proves a task again when the validator lost its accepted proof, at most MAX_PROOFS_PER_TASK times', async () => {
    const node = new FakeValidator();
    const url = await node.start();
    const keys = deriveKeys(bytesOf(generateWallet().privateKey));
    const reporter = new Recorder();
    const miner = new Miner({ keys, rpc: new RpcClient(url), engine: new FakeEngine(WARM), reporter, pollIntervalMs: 20 });
    const lost = task(9, 'nine');
    const proofsOf = (id: string) => node.proofs.filter((p) => p.task_id === id).length;
    try {
      node.tasks = [lost, task(10, 'ten')];
      const running = miner.run();
      await waitFor('both proofs', () => node.proofs.length === 2);
      for (let n = 2; n <= MAX_PROOFS_PER_TASK; n++) {
        node.lose(lost.task_id);
        await waitFor(`proof ${n} of the lost task`, () => proofsOf(lost.task_id) === n);
      }
      node.lose(lost.task_id);
      // A proof sent again and refused (-32003) ends it: the task stays listed but is not proven a third time.
      const refused = task(11, 'eleven');
      node.tasks = [...node.tasks, refused];
      await waitFor('the proof of task 11', () => proofsOf(refused.task_id) === 1);
      node.reject.set(refused.task_id, 'DUPLICATE_PROOF');
      node.lose(refused.task_id);
      await waitFor('its second proof, refused', () => proofsOf(refused.task_id) === 2);
      const polls = node.count('svc_getInferenceTasks');
      await waitFor('more polls', () => node.count('svc_getInferenceTasks') >= polls + 5);
      assert.equal(proofsOf(lost.task_id), MAX_PROOFS_PER_TASK, 'no more than MAX_PROOFS_PER_TASK proofs of one task');
      assert.equal(proofsOf(refused.task_id), 2, 'a task whose proof was refused is not proven again');
      assert.equal(proofsOf(task(10, 'ten').task_id), 1, 'a task whose proof was kept is never proven again');
      for (const p of node.proofs) assertProofSigned(p, keys.publicKey);
      assert.equal(reporter.stats().tasksDone, 3, 'a task proven again is still one task done');
      assert.equal(reporter.stats().proofsRejected, 1);
      assert.equal(reporter.lines.filter((l) => /listed again after the validator accepted its proof/.test(l)).length, MAX_PROOFS_PER_TASK - 1 + 1);
      await miner.stop();
      await running;
    } finally {
      await miner.stop();
      await node.stop();
    }
  });

  it('follows the chain\'s models: registers again for a model governance pinned, loads it by those pins, drops it when retired', async () => {
    const node = new FakeValidator();
    const url = await node.start();
    const keys = deriveKeys(bytesOf(generateWallet().privateKey));
    const engine = new FakeEngine(COLD);
    const reporter = new Recorder();
    const chainModel = (id: string, extra: Partial<ApprovedModelJson> = {}): ApprovedModelJson => ({
      id, tier: 'Cold', dims: 8, status: 'approved', refusedFromBlock: null, approvedAtBlock: 0, approvedBy: null, files: null, pinnedBy: 'registry', ...extra,
    });
    const pinned = { weights: { sha256: 'aa'.repeat(32), size: 10 }, tokenizer: { sha256: 'bb'.repeat(32), size: 5 } };
    const medium = chainModel(MEDIUM, {
      approvedAtBlock: 120, approvedBy: 1, pinnedBy: 'governance',
      files: [{ name: 'model.safetensors', ...pinned.weights }, { name: 'tokenizer.json', ...pinned.tokenizer }],
    });
    node.approved = [chainModel(SMALL)];
    const miner = new Miner({ keys, rpc: new RpcClient(url), engine, reporter, pollIntervalMs: 20, modelsRefreshMs: 50 });
    try {
      const running = miner.run();
      await waitFor('a registration', () => node.registrations.length === 1);
      assert.deepEqual(node.registrations[0]!.models, [SMALL]);

      // Approved by governance with pinned files (the registry pins none for it): registered, its tasks proven.
      node.approved = [chainModel(SMALL), medium];
      await waitFor('a registration with the approved model', () => node.registrations.length === 2);
      assert.deepEqual(node.registrations[1]!.models, [SMALL, MEDIUM]);
      assert.ok(node.registrations[1]!.sequence > node.registrations[0]!.sequence);
      await assertRegistrationSigned(node.registrations[1]!, keys.address);
      node.tasks = [task(1, 'one', MEDIUM), task(2, 'two')];
      await waitFor('both proofs', () => node.proofs.length === 2);
      const i = engine.loads.indexOf(MEDIUM);
      assert.deepEqual(engine.loadPins[i], pinned, 'loaded by the chain\'s pins');
      assert.equal(engine.loadPins[engine.loads.indexOf(SMALL)], null, 'a genesis model by the registry\'s');
      assert.ok(reporter.lines.some((l) => /added svc-embed-medium@v1\.0 \(files pinned by governance\)/.test(l)));

      // Retiring: still served until the block before its refusal block, then dropped and registered without.
      node.approved = [chainModel(SMALL), { ...medium, status: 'retiring', refusedFromBlock: node.block + 40 }];
      const polls = node.count('svc_getApprovedModels');
      await waitFor('the retiring model read', () => node.count('svc_getApprovedModels') >= polls + 2);
      assert.equal(node.registrations.length, 2, 'a retiring model is still served');
      await waitFor('a registration without the retired model', () => node.registrations.length === 3, 10_000);
      assert.deepEqual(node.registrations[2]!.models, [SMALL]);
      assert.ok(node.block + 1 >= node.approved[1]!.refusedFromBlock!, 'dropped once the next block refuses its proofs');
      assert.deepEqual(miner.models, [SMALL]);
      node.tasks = [...node.tasks, task(3, 'three', MEDIUM), task(4, 'four')];
      await waitFor('the small task', () => node.proofs.some((p) => p.task_id === task(4, 'four').task_id));
      const after = node.count('svc_getInferenceTasks');
      await waitFor('more polls', () => node.count('svc_getInferenceTasks') >= after + 5);
      assert.ok(!node.proofs.some((p) => p.task_id === task(3, 'three', MEDIUM).task_id), 'no task of a retired model is taken');
      assert.ok(reporter.lines.some((l) => /dropped svc-embed-medium@v1\.0 \(retired\)/.test(l)));
      await miner.stop();
      await running;
    } finally {
      await miner.stop();
      await node.stop();
    }
  });

  it('servableModels: the chain\'s list merged with the registry, hot models kept less retired ones, tiers respected', () => {
    const chain = (id: string, status: ApprovedModelJson['status'], tier: ApprovedModelJson['tier'] = 'Cold', files: ApprovedModelJson['files'] = null): ApprovedModelJson => ({
      id, tier, dims: 8, status, refusedFromBlock: status === 'approved' ? null : 50, approvedAtBlock: 0, approvedBy: null, files, pinnedBy: files ? 'governance' : 'registry',
    });
    const files = [{ name: 'model.safetensors', sha256: 'AA'.repeat(32), size: 1 }, { name: 'tokenizer.json', sha256: 'bb'.repeat(32), size: 2 }];
    // No chain list (an older node): the registry's pinned models of the tier, or the hot list.
    assert.deepEqual(servableModels(FAKE_MODELS, WARM, [], null).models, [SMALL, CLASSIFY]);
    assert.deepEqual(servableModels(FAKE_MODELS, WARM, [CLASSIFY], null).models, [CLASSIFY]);
    // Only what the chain approves; an unpinned model counts once the chain pins it (digests in lower case).
    const s = servableModels(FAKE_MODELS, WARM, [], [chain(SMALL, 'approved'), chain(MEDIUM, 'approved', 'Cold', files)]);
    assert.deepEqual(s.models, [SMALL, MEDIUM]);
    assert.equal(s.pins.get(MEDIUM)!.weights.sha256, 'aa'.repeat(32));
    assert.equal(servableModels(FAKE_MODELS, WARM, [], [chain(MEDIUM, 'approved')]).models.length, 0, 'approved but pinned nowhere');
    // Retired (or due to be refused by the next block) is dropped, hot models included.
    assert.deepEqual(servableModels(FAKE_MODELS, WARM, [SMALL, CLASSIFY], [chain(SMALL, 'approved'), chain(CLASSIFY, 'retired', 'Warm')]), {
      models: [SMALL], pins: new Map(), retired: [CLASSIFY],
    });
    assert.deepEqual(servableModels(FAKE_MODELS, WARM, [], [chain(SMALL, 'approved'), chain(CLASSIFY, 'retiring', 'Warm')], 48).models, [SMALL, CLASSIFY]);
    assert.deepEqual(servableModels(FAKE_MODELS, WARM, [], [chain(SMALL, 'approved'), chain(CLASSIFY, 'retiring', 'Warm')], 49).models, [SMALL]);
    // The chain's tier, when it asks more than the registry's, keeps a lower tier out (its registration would be refused).
    assert.deepEqual(servableModels(FAKE_MODELS, COLD, [], [chain(SMALL, 'approved', 'Warm')]).models, []);
  });

  it('refuses hot models it cannot load', () => {
    const keys = deriveKeys(bytesOf(generateWallet().privateKey));
    const make = (hot: string[]) => new Miner({ keys, rpc: new RpcClient('http://127.0.0.1:9'), engine: new FakeEngine(COLD), reporter: new Recorder(), hotModels: hot });
    assert.throws(() => make([CLASSIFY]), (e) => e instanceof MinerConfigError && /needs tier Warm/.test(e.message));
    assert.throws(() => make([MEDIUM]), (e) => e instanceof MinerConfigError && /pins no SHA-256/.test(e.message));
    assert.throws(() => make(['nope@v1.0']), (e) => e instanceof MinerConfigError && /unknown model/.test(e.message));
    assert.deepEqual(make([SMALL, ` ${SMALL}`]).models, [SMALL]);
  });

  it('keeps hot models and drops the least recently used others to stay within --max-memory', async () => {
    const models = [fakeModel('a@v1.0', 'Cold', 500), fakeModel('b@v1.0', 'Cold', 500), fakeModel('c@v1.0', 'Cold', 500), fakeModel('d@v1.0', 'Cold', 500)];
    const engine = new FakeEngine(COLD, models);
    const cache = new ModelCache(engine, models, ['a@v1.0', 'b@v1.0', 'c@v1.0'], ['a@v1.0'], 1000);
    await cache.get('a@v1.0');
    await cache.get('b@v1.0');
    assert.deepEqual(cache.loadedIds(), ['a@v1.0', 'b@v1.0']);
    await cache.get('c@v1.0');
    assert.deepEqual(cache.loadedIds().sort(), ['a@v1.0', 'c@v1.0'], 'b dropped, hot a kept');
    await cache.get('b@v1.0');
    assert.deepEqual(cache.loadedIds().sort(), ['a@v1.0', 'b@v1.0']);
    assert.equal(engine.loads.length, 4);
    await assert.rejects(cache.get('d@v1.0'), /not one this miner registered for/);
    const unbounded = new ModelCache(engine, models, ['a@v1.0', 'b@v1.0', 'c@v1.0'], [], Number.POSITIVE_INFINITY);
    for (const id of ['a@v1.0', 'b@v1.0', 'c@v1.0']) await unbounded.get(id);
    assert.equal(unbounded.loadedIds().length, 3);
  });
});

// ---------------------------------------------------------------------------------------------
// The real program with the inference addon.

describe('svc-miner mining', () => {
  it('takes its wallet, key and validator from SVC_MINER_*, retries an unreachable validator, stops on SIGINT', { skip: requireOrSkip(missingInferenceAddon()) }, async () => {
    const w = generateWallet();
    const port = await closedPort();
    const m = start([], {
      SVC_MINER_WALLET: w.address, SVC_MINER_PRIVATE_KEY: w.privateKey, SVC_MINER_RPC_URL: `http://127.0.0.1:${port}`,
      SVC_MINER_BACKEND: 'cpu', SVC_MINER_MODEL_DIR: testModelDir(),
    });
    await waitFor('the retrying status', () => /retrying \(validator unreachable/.test(m.stderr()), 30_000, () => m.stderr());
    assert.ok(m.stderr().includes(w.address));
    assert.match(m.stderr(), new RegExp(`cannot reach http://127\\.0\\.0\\.1:${port}`));
    m.child.kill('SIGINT');
    assert.equal(await m.exit, 0, m.stderr());
    assert.match(m.stdout(), /svc-miner: mined for \d+s: 0 tasks done, 0 proofs accepted, 0 rejected, earned 0 SVC/);
  });

  it('registers, proves assigned tasks with svc-embed-small, never twice, and goes on after a rejection', { skip: requireOrSkip(missingSmallModel()), timeout: 180_000 }, async () => {
    const node = new FakeValidator();
    const url = await node.start();
    const w = generateWallet();
    const inputs = ['The cat sat on the mat.', 'A proof of contribution.', 'Zwölf Boxkämpfer jagen Viktor quer über den großen Sylter Deich.'];
    node.tasks = [...inputs.map((input, i) => task(i + 1, input)), task(9, 'not for this miner', CLASSIFY)];
    node.reject.set(node.tasks[0]!.task_id, 'NOT_ASSIGNED');
    const m = start(['--wallet', w.address, '--private-key', w.privateKey, '--validator-rpc', url, '--backend', 'cpu',
      '--model-dir', testModelDir(), '--poll-interval', '200', '--verbose']);
    try {
      await waitFor('three proofs', () => node.proofs.length >= 3, 120_000, () => m.stderr());
      const polls = node.count('svc_getInferenceTasks');
      await waitFor('five more polls', () => node.count('svc_getInferenceTasks') >= polls + 5, 30_000, () => m.stderr());
      assert.equal(node.proofs.length, 3, 'each task submitted once, the unregistered model never');

      assert.equal(node.registrations.length, 1);
      const reg = node.registrations[0]!;
      await assertRegistrationSigned(reg, w.address);
      assert.equal(reg.public_key, w.publicKey);
      assert.equal(reg.tier, inferenceAddon().detectHardware('cpu').tier);
      assert.ok(reg.models.includes(SMALL));
      assert.ok(!reg.models.includes(MEDIUM), 'an unpinned model is not registered');

      for (const p of node.proofs) {
        const t = node.tasks.find((x) => x.task_id === p.task_id)!;
        assert.ok(t, `proof for an assigned task ${p.task_id}`);
        assertProofSigned(p, w.publicKey);
        assert.equal(p.validator, VALIDATOR);
        assert.equal(p.miner.toLowerCase(), w.address.toLowerCase());
        assert.equal(p.model_id, SMALL);
        assert.equal(p.input_hash, hexOf(inputHash(t.input)));
        assert.equal(p.output_hash, hexOf(outputHash(SMALL, inputHash(t.input), bytesOf(p.quantized))));
        assert.equal(bytesOf(p.quantized).length, 384);
        assert.ok(Number.isInteger(p.flops) && p.flops > 0);
        assert.ok(Number.isInteger(p.execution_time_ms) && p.execution_time_ms >= 1);
      }
      assert.match(m.stderr(), /rejected: NOT_ASSIGNED/);

      m.child.kill('SIGINT');
      assert.equal(await m.exit, 0, m.stderr());
      assert.match(m.stdout(), /svc-miner: mined for \d+s: 2 tasks done, 2 proofs accepted, 1 rejected, earned 0\.2 SVC/);
    } finally {
      if (m.child.exitCode === null) m.child.kill('SIGKILL');
      await node.stop();
    }
  });
});
