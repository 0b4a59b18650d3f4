// A CometBFT validator's compute-mode announcement: the node signs its mode with the validator's
// consensus key (CometBFT's priv_validator_key.json) and hands it to the network's mempool as a
// compute message, so that every node records the mode from a block, not only once the validator
// has proposed one (its extra data announces it too). It is sent at start, once CometBFT answers,
// and again whenever the chain's record of the validator differs from the node's mode and nothing
// was sent for a while (a message lost on the way heals). Only a node whose key is the consensus key
// of its validator's staking record announces.
import { sign } from 'node:crypto';
import type { Logger } from 'pino';
import type { ChainApp } from '../../chain/app.js';
import type { NodeEvents } from '../../chain/events.js';
import type { Chain } from '../../native/index.js';
import { encodeMessage } from '../../modules/kernel/messages.js';
import type { Address, ComputeMode } from '../../modules/compute/types.js';
import { hexOf, modeMessage } from '../../modules/compute/wire.js';
import { messageTx } from './block-txs.js';
import type { CheckTxAnswer } from './client.js';
import type { ValidatorSigningKey } from './home.js';

/** After this many blocks without its mode recorded, the node announces again. */
export const MODE_RESEND_BLOCKS = 10;

export interface ModeAnnouncerOptions {
  app: ChainApp;
  chain: Chain;
  events: NodeEvents;
  /** The network's mempool (CometBFT's broadcast_tx_sync). */
  send: (tx: Buffer) => Promise<CheckTxAnswer>;
  /** The EVM chain id (the announcement is signed for it). */
  chainId: number;
  /** The node's validator (operator address). */
  validator: Address;
  mode: ComputeMode;
  key: ValidatorSigningKey;
  log: Logger;
  /** How often to try while CometBFT does not answer yet, milliseconds. */
  retryMs?: number;
}

export class ModeAnnouncer {
  /** The head height of the last announcement CometBFT answered (taken or refused); null: none yet. */
  private sentAt: number | null = null;
  private sending = false;
  private stopped = false;
  private unreachable = false;
  private lastRefusal = '';
  private timer: NodeJS.Timeout | undefined;
  private readonly publicKey: string;
  private readonly onBlock = (): void => void this.maybeAnnounce();

  constructor(private readonly o: ModeAnnouncerOptions) {
    this.publicKey = hexOf(o.key.publicKey);
  }

  start(): void {
    this.o.events.on('block', this.onBlock);
    // Until CometBFT has answered once, tried on a timer too (no block may come before it).
    this.timer = setInterval(() => {
      if (this.sentAt !== null) {
        clearInterval(this.timer);
        this.timer = undefined;
        return;
      }
      void this.maybeAnnounce();
    }, this.o.retryMs ?? 500);
    this.timer.unref();
    void this.maybeAnnounce();
  }

  stop(): void {
    this.stopped = true;
    this.o.events.off('block', this.onBlock);
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
  }

  /** Whether the node's key is its validator's consensus key on the chain (a validator not yet registered with it does not announce). */
  private isValidatorKey(): boolean {
    return this.o.app.queries.staking.validator(this.o.validator)?.consensusKey?.toLowerCase() === this.publicKey;
  }

  private async maybeAnnounce(): Promise<void> {
    if (this.sending || this.stopped || !this.isValidatorKey()) return;
    const height = this.o.chain.head().number;
    if (this.sentAt !== null) {
      const recorded = this.o.app.queries.compute.validatorCompute(this.o.validator)?.mode;
      if (recorded === this.o.mode || height - this.sentAt < MODE_RESEND_BLOCKS) return;
    }
    this.sending = true;
    try {
      const message = modeMessage({ chainId: this.o.chainId, validator: Buffer.from(this.o.validator.slice(2), 'hex'), mode: this.o.mode, height });
      const body = { validator: this.o.validator, mode: this.o.mode, height, publicKey: this.publicKey, signature: hexOf(sign(null, message, this.o.key.privateKey)) };
      let answer: CheckTxAnswer;
      try {
        answer = await this.o.send(messageTx(encodeMessage({ module: 'compute', kind: 'mode', body })));
      } catch (err) {
        if (!this.unreachable) this.o.log.debug({ err }, 'compute mode not announced yet: CometBFT does not answer');
        this.unreachable = true;
        return;
      }
      this.unreachable = false;
      this.sentAt = height;
      if (answer.code === 0) {
        this.lastRefusal = '';
        this.o.log.info({ mode: this.o.mode, height }, 'compute mode announced to the network');
      } else if (answer.log !== this.lastRefusal) {
        this.lastRefusal = answer.log;
        this.o.log.warn({ mode: this.o.mode, height, reason: answer.log }, 'the network mempool refused the compute-mode announcement');
      }
    } finally {
      this.sending = false;
    }
  }
}
