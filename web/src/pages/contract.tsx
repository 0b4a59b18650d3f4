// A contract: its creation and, when verified, its compiler, sources and ABI, and its view and pure
// functions read at the head (POST /contracts/{address}/read, an eth_call with the verified ABI).
import type { ComponentChildren } from 'preact';
import { useState } from 'preact/hooks';
import { api, ApiError } from '../api.js';
import { AddressLink, Age, BlockLink, Facts, Loading, Section, Status } from '../components.js';
import { useApi } from '../hooks.js';
import type { AbiEntry, ContractsApi } from '../../../src/explorer/routes/contracts.js';

type ContractInfo = ContractsApi['getContract']['response'];
type ReadResult = ContractsApi['readContract']['response'];

/** `name(type,…)`: how the read route names an overloaded function. */
const signature = (f: AbiEntry) => `${f.name ?? ''}(${(f.inputs ?? []).map((i) => i.type).join(',')})`;

/** One view or pure function: a field per argument, a button, and what the call answered. */
function ReadFunction({ address, fn }: { address: string; fn: AbiEntry }) {
  const inputs = fn.inputs ?? [];
  const [args, setArgs] = useState<string[]>(inputs.map(() => ''));
  const [result, setResult] = useState<ReadResult | null>(null);
  const [error, setError] = useState<string | null>(null);
  const id = `read-${signature(fn).replace(/[^a-zA-Z0-9]/g, '-')}`;
  const query = async (e: Event) => {
    e.preventDefault();
    setError(null);
    setResult(null);
    try {
      // Arrays and tuples are written as JSON; everything else as typed.
      const parsed = args.map((a, i) => (/\[|tuple/.test(inputs[i]!.type) ? (JSON.parse(a) as unknown) : inputs[i]!.type === 'bool' ? a === 'true' : a));
      setResult(await api<ReadResult>(`/contracts/${address}/read`, { method: 'POST', body: { method: signature(fn), args: parsed } }));
    } catch (err) {
      setError(err instanceof ApiError || err instanceof SyntaxError ? err.message : String(err));
    }
  };
  return (
    <form class="read" onSubmit={query} aria-labelledby={id}>
      <div class="mono" id={id}>{signature(fn)}</div>
      {inputs.map((input, i) => (
        <label key={i}>
          <span class="muted">{input.name || `arg${i}`} ({input.type})</span>
          <input value={args[i]} onInput={(e) => setArgs(args.map((a, j) => (j === i ? (e.target as HTMLInputElement).value : a)))} />
        </label>
      ))}
      <button type="submit">Query</button>
      {result ? (
        <ul class="mono">
          {result.outputs.map((o, i) => (
            <li key={i}>
              {o.name || `out${i}`} ({o.type}): <span class="break">{typeof o.value === 'string' ? o.value : JSON.stringify(o.value)}</span>
            </li>
          ))}
        </ul>
      ) : null}
      {error ? <p class="error" role="alert">{error}</p> : null}
    </form>
  );
}

function Verified({ address }: { address: string }) {
  const source = useApi<ContractsApi['getContractSource']['response']>(`/contracts/${address}/source`);
  const abi = useApi<ContractsApi['getContractAbi']['response']>(`/contracts/${address}/abi`);
  return (
    <>
      <Section title="Read contract" id="read">
        <Loading state={abi}>
          {({ abi: a }) => {
            const reads = a.filter((e) => e.type === 'function' && (e.stateMutability === 'view' || e.stateMutability === 'pure'));
            return reads.length === 0 ? <p class="muted">No view or pure functions.</p> : <>{reads.map((f) => <ReadFunction key={signature(f)} address={address} fn={f} />)}</>;
          }}
        </Loading>
      </Section>
      <Section title="ABI">
        <Loading state={abi}>
          {({ abi: a }) => (
            <>
              <ul class="abi">
                {a.filter((e) => e.type === 'function' || e.type === 'event').map((e, i) => (
                  <li key={i} class="mono">
                    {e.type} {e.name ?? ''}({(e.inputs ?? []).map((x) => `${x.type}${x.name ? ` ${x.name}` : ''}`).join(', ')})
                    {e.type === 'function' && e.outputs && e.outputs.length > 0 ? ` → (${e.outputs.map((x) => x.type).join(', ')})` : ''}
                    {e.type === 'function' ? <span class="muted"> {e.stateMutability}</span> : null}
                  </li>
                ))}
              </ul>
              <details>
                <summary>ABI as JSON</summary>
                <pre>{JSON.stringify(a, null, 2)}</pre>
              </details>
            </>
          )}
        </Loading>
      </Section>
      <Section title="Source">
        <Loading state={source}>
          {(s) => (
            <>
              {Object.entries(s.sources).map(([file, { content }]) => (
                <details key={file} open={file === s.sourcePath}>
                  <summary class="mono">{file}</summary>
                  <pre>{content}</pre>
                </details>
              ))}
              <p>Constructor arguments: <span class="mono break">{s.constructorArguments}</span></p>
            </>
          )}
        </Loading>
      </Section>
    </>
  );
}

export function Contract({ address }: { address: string }) {
  const info = useApi<ContractInfo>(`/contracts/${address}`);
  return (
    <Loading state={info}>
      {(c) => (
        <>
          <h1>Contract {c.contractName ?? ''}</h1>
          <p><AddressLink address={c.address} label={c.address} /></p>
          <Section title="Overview">
            <Facts
              rows={[
                ['Verified', c.verified ? <span><Status status="pass" /> {c.match} match</span> : 'not verified (POST /api/v1/contracts/{address}/verify)'],
                ['Code size', `${c.codeSize} bytes`],
                ['Creator', <AddressLink address={c.creator} />],
                ['Creation', c.txHash ? <a class="mono" href={`/tx/${c.txHash}`}>{c.txHash.slice(0, 18)}…</a> : '—'],
                ['Block', c.blockNumber === null ? '—' : <span><BlockLink number={c.blockNumber} />{c.timestamp !== null ? <> (<Age at={c.timestamp} />)</> : null}</span>],
                ...(c.verified
                  ? ([
                      ['Compiler', c.compilerVersion],
                      ['Optimizer', c.optimizer ? (c.optimizer.enabled ? `on, ${c.optimizer.runs} runs` : 'off') : '—'],
                      ['EVM version', c.evmVersion ?? 'compiler default'],
                      ['License', c.license ?? '—'],
                    ] as [string, ComponentChildren][])
                  : []),
              ]}
            />
          </Section>
          {c.verified ? <Verified address={address} /> : null}
        </>
      )}
    </Loading>
  );
}
