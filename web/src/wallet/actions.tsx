// Acting from a browser wallet: delegating to a validator, undelegating and claiming rewards; voting
// on and depositing to a proposal; paying an account's rent. Each form encodes the module call,
// hands it to the wallet (which signs: the page never holds a key) and shows the transaction's hash,
// linked to its page, and its result with the revert reason of a refused one.
import type { ComponentChildren } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { Status, TxLink } from '../components.js';
import { short } from '../format.js';
import { parseEther, type AbiValue } from './abi.js';
import { connect, hasWallet, sendModuleCall, systemModules, useWallet, walletError, type TxOutcome } from './wallet.js';

/** The header's button: connect, or the connected account. */
export function ConnectButton() {
  const w = useWallet();
  if (w.account) {
    return (
      <a class="wallet mono" href={`/address/${w.account}`} title={`wallet ${w.account}`}>
        {short(w.account, 4)}
      </a>
    );
  }
  return (
    <button type="button" class="wallet" onClick={() => void connect()} disabled={w.connecting} title={w.error ?? undefined}>
      {w.connecting ? 'Connecting…' : 'Connect wallet'}
    </button>
  );
}

interface Sent {
  action: string;
  hash: string | null;
  outcome: TxOutcome | null;
  error: string | null;
}

/** One form's sending state: the last action sent and what became of it. */
function useSender() {
  const [sent, setSent] = useState<Sent | null>(null);
  const busy = sent !== null && sent.error === null && sent.outcome === null;
  const send = async (action: string, module: string, fn: string, args: () => AbiValue[], value: () => bigint = () => 0n) => {
    setSent({ action, hash: null, outcome: null, error: null });
    try {
      const outcome = await sendModuleCall(module, fn, args(), value(), (hash) => setSent({ action, hash, outcome: null, error: null }));
      setSent({ action, hash: outcome.hash, outcome, error: null });
    } catch (err) {
      setSent((s) => ({ action, hash: s?.hash ?? null, outcome: null, error: walletError(err) }));
    }
  };
  return { sent, busy, send };
}

function Result({ sent }: { sent: Sent | null }) {
  if (!sent) return null;
  const state = sent.error ? 'error' : sent.outcome ? sent.outcome.status : 'pending';
  return (
    <div class="tx-result" role="status" data-state={state}>
      <strong>{sent.action}</strong>{' '}
      {sent.hash ? <TxLink hash={sent.hash} full /> : sent.error ? null : <span class="muted">waiting for the wallet…</span>}{' '}
      {sent.outcome ? <Status status={sent.outcome.status} /> : sent.hash && !sent.error ? <Status status="pending" /> : null}
      {sent.outcome?.reason ? <span class="reason"> {sent.outcome.reason}</span> : null}
      {sent.outcome?.block !== null && sent.outcome?.block !== undefined ? <span class="muted"> in block <a href={`/block/${sent.outcome.block}`}>{sent.outcome.block}</a></span> : null}
      {sent.error ? <span class="error"> {sent.error}</span> : null}
    </div>
  );
}

/** Shows `children` once a wallet is connected, a connect button before. */
function Connected({ what, children }: { what: string; children: ComponentChildren }) {
  const w = useWallet();
  if (w.account) return <>{children}</>;
  return (
    <p class="wallet-gate">
      {hasWallet() ? `Connect a wallet to ${what}. ` : `A browser wallet (MetaMask or another) lets you ${what} here. `}
      <ConnectButton />
      {w.error ? <span class="error" role="alert"> {w.error}</span> : null}
    </p>
  );
}

function AmountField({ id, label, value, onInput }: { id: string; label: string; value: string; onInput: (v: string) => void }) {
  return (
    <label for={id}>
      {label}{' '}
      <input id={id} name={id} inputMode="decimal" autoComplete="off" placeholder="0.0" value={value} onInput={(e) => onInput((e.target as HTMLInputElement).value)} />
    </label>
  );
}

/** Delegate to, undelegate from and claim rewards from one validator. */
export function DelegationActions({ validator }: { validator: string }) {
  const [amount, setAmount] = useState('');
  const { sent, busy, send } = useSender();
  const wei = () => parseEther(amount);
  return (
    <div class="wallet-actions" aria-label="delegation actions">
      <Connected what="delegate to this validator">
        <form class="actions" onSubmit={(e) => e.preventDefault()}>
          <AmountField id="delegation-amount" label="Amount (ETH)" value={amount} onInput={setAmount} />
          <button type="button" disabled={busy} onClick={() => void send('Delegate', 'staking', 'delegate', () => [validator], wei)}>Delegate</button>
          <button type="button" disabled={busy} onClick={() => void send('Undelegate', 'staking', 'undelegate', () => [validator, wei()])}>Undelegate</button>
          <button type="button" disabled={busy} onClick={() => void send('Claim rewards', 'staking', 'claimRewards', () => [validator])}>Claim rewards</button>
        </form>
        <Result sent={sent} />
      </Connected>
    </div>
  );
}

/** Vote on a proposal in its voting period; deposit to it while it takes deposits. */
export function ProposalActions({ id, status }: { id: number | string; status: string }) {
  const [amount, setAmount] = useState('');
  const [options, setOptions] = useState<string[]>([]);
  const [option, setOption] = useState(1);
  const { sent, busy, send } = useSender();
  const voting = status === 'voting-period';
  const deposits = voting || status === 'deposit-period';
  useEffect(() => {
    if (voting) systemModules().then((m) => setOptions(m.voteOptions), () => setOptions([]));
  }, [voting]);
  if (!deposits) return <p class="muted">Votes and deposits are closed: the proposal is {status}.</p>;
  return (
    <div class="wallet-actions" aria-label="proposal actions">
      <Connected what={voting ? 'vote on this proposal' : 'deposit to this proposal'}>
        <form class="actions" onSubmit={(e) => e.preventDefault()}>
          {voting ? (
            <>
              <label for="vote-option">
                Vote{' '}
                <select id="vote-option" name="vote-option" value={option} onChange={(e) => setOption(Number((e.target as HTMLSelectElement).value))}>
                  {/* Option n is the ABI's uint8 n: the node's list, in its order. */}
                  {options.map((o, i) => <option key={o} value={i + 1}>{o}</option>)}
                </select>
              </label>
              <button type="button" disabled={busy || options.length === 0} onClick={() => void send('Vote', 'governance', 'vote', () => [BigInt(id), option])}>Vote</button>
            </>
          ) : null}
          <AmountField id="deposit-amount" label="Deposit (ETH)" value={amount} onInput={setAmount} />
          <button type="button" disabled={busy} onClick={() => void send('Deposit', 'governance', 'deposit', () => [BigInt(id)], () => parseEther(amount))}>Deposit</button>
        </form>
        <Result sent={sent} />
      </Connected>
    </div>
  );
}

/** Pay an account's rent (anyone may), or reactivate a dormant one. */
export function RentActions({ address, dormant = false }: { address: string; dormant?: boolean }) {
  const [amount, setAmount] = useState('');
  const { sent, busy, send } = useSender();
  const fn = dormant ? 'reactivate' : 'payRent';
  return (
    <div class="wallet-actions" aria-label="rent actions">
      <Connected what={dormant ? 'reactivate this account' : "pay this account's rent"}>
        <form class="actions" onSubmit={(e) => e.preventDefault()}>
          <AmountField id="rent-amount" label="Amount (ETH)" value={amount} onInput={setAmount} />
          <button type="button" disabled={busy} onClick={() => void send(dormant ? 'Reactivate' : 'Pay rent', 'rent', fn, () => [address], () => parseEther(amount))}>
            {dormant ? 'Reactivate' : 'Pay rent'}
          </button>
        </form>
        <Result sent={sent} />
      </Connected>
    </div>
  );
}
