// The compute-mode announcer's schedule, against stand-ins for the chain and CometBFT's mempool: it
// announces once CometBFT answers (retrying on its timer while it does not), announces again only
// when the chain's record still differs MODE_RESEND_BLOCKS blocks after the last one, stops once
// the record is the node's mode, and does nothing for a node whose key is not its validator's.
import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { generateKeyPairSync, verify } from 'node:crypto';
import { EventEmitter } from 'node:events';
import pino from 'pino';
import { ModeAnnouncer, MODE_RESEND_BLOCKS } from '../src/consensus/cometbft/mode-announcer.js';
import { splitBlockTxs } from '../src/consensus/cometbft/block-txs.js';
import { decodeMessage } from '../src/modules/kernel/messages.js';
import { modeMessage } from '../src/modules/compute/wire.js';
import type { ChainApp } from '../src/chain/app.js';
import type { NodeEvents } from '../src/chain/events.js';
import type { Chain } from '../src/native/index.js';
import type { CheckTxAnswer } from '../src/consensus/cometbft/client.js';

const VALIDATOR = '0x00000000000000000000000000000000000a11ce' as const;
const CHAIN_ID = 9000;

function rig(opts: { keyOnChain?: boolean } = {}) {
  const { publicKey, privateKey } = generateKeyPairSync('ed25519');
  const raw = publicKey.export({ format: 'der', type: 'spki' }).subarray(-32);
  const chainState = { head: 5, recorded: undefined as string | undefined, reachable: false };
  const sent: { height: number; body: Record<string, unknown> }[] = [];
  const events = new EventEmitter() as NodeEvents;
  // The announcer reads the chain through the modules' queries only.
  const app = {
    queries: {
      staking: { validator: (a: string) => (a === VALIDATOR ? { consensusKey: opts.keyOnChain === false ? `0x${'00'.repeat(32)}` : `0x${raw.toString('hex')}` } : undefined) },
      compute: { validatorCompute: (a: string) => (a === VALIDATOR && chainState.recorded ? { mode: chainState.recorded } : undefined) },
    },
  } as unknown as ChainApp;
  const chain = { head: () => ({ number: chainState.head }) } as unknown as Chain;
  const send = async (tx: Buffer): Promise<CheckTxAnswer> => {
    if (!chainState.reachable) throw new Error('connect ECONNREFUSED');
    const [message] = splitBlockTxs([tx]).messages;
    const body = decodeMessage(message!).body as Record<string, unknown>;
    sent.push({ height: chainState.head, body });
    return { code: 0, log: '' } as CheckTxAnswer;
  };
  const announcer = new ModeAnnouncer({ app, chain, events, send, chainId: CHAIN_ID, validator: VALIDATOR, mode: 'pow', key: { publicKey: raw, privateKey }, log: pino({ level: 'silent' }), retryMs: 20 });
  const block = async (height: number) => {
    chainState.head = height;
    events.emit('block', {} as never);
    await new Promise((r) => setTimeout(r, 5));
  };
  return { announcer, chainState, sent, block, publicKey };
}

const until = async (check: () => boolean, ms = 2_000) => {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) assert.fail('timed out');
    await new Promise((r) => setTimeout(r, 10));
  }
};

describe('the compute-mode announcer', () => {
  const running: ModeAnnouncer[] = [];
  after(() => running.forEach((a) => a.stop()));

  it('announces once CometBFT answers, signed for the head it saw; again only after MODE_RESEND_BLOCKS blocks while the record differs; never once it matches', async () => {
    const r = rig();
    running.push(r.announcer);
    r.announcer.start();
    // CometBFT does not answer yet: nothing is sent, and the timer keeps trying.
    await new Promise((res) => setTimeout(res, 80));
    assert.equal(r.sent.length, 0);
    r.chainState.reachable = true;
    await until(() => r.sent.length === 1);
    const first = r.sent[0]!;
    assert.equal(first.height, 5);
    assert.deepEqual({ validator: first.body.validator, mode: first.body.mode, height: first.body.height }, { validator: VALIDATOR, mode: 'pow', height: 5 });
    const signed = modeMessage({ chainId: CHAIN_ID, validator: Buffer.from(VALIDATOR.slice(2), 'hex'), mode: 'pow', height: 5 });
    assert.ok(verify(null, signed, r.publicKey, Buffer.from(String(first.body.signature).slice(2), 'hex')), 'signed by the consensus key');

    // The message was lost: the chain still records no mode. Nothing more until MODE_RESEND_BLOCKS blocks later.
    for (let h = 6; h < 5 + MODE_RESEND_BLOCKS; h++) await r.block(h);
    assert.equal(r.sent.length, 1);
    await r.block(5 + MODE_RESEND_BLOCKS);
    await until(() => r.sent.length === 2);
    assert.equal(r.sent[1]!.body.height, 5 + MODE_RESEND_BLOCKS);

    // A block records it: no announcement however long the chain runs.
    r.chainState.recorded = 'pow';
    for (let h = 6 + MODE_RESEND_BLOCKS; h < 5 + 4 * MODE_RESEND_BLOCKS; h++) await r.block(h);
    assert.equal(r.sent.length, 2);
    // The record changes (another announcement, a governance change): it announces again after the pause.
    r.chainState.recorded = 'none';
    await r.block(5 + 4 * MODE_RESEND_BLOCKS);
    await until(() => r.sent.length === 3);
  });

  it('does not announce for a validator whose chain record names another consensus key', async () => {
    const r = rig({ keyOnChain: false });
    running.push(r.announcer);
    r.chainState.reachable = true;
    r.announcer.start();
    for (let h = 6; h < 6 + 2 * MODE_RESEND_BLOCKS; h++) await r.block(h);
    assert.equal(r.sent.length, 0);
  });
});
