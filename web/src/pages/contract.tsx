// A contract: its creation and, when verified, its compiler, sources and ABI. Read calls are not
// offered: the explorer has no eth_call route and the JSON-RPC is another port (another origin).
import type { ComponentChildren } from 'preact';
import type { Abi } from 'viem';
import { AddressLink, Age, BlockLink, Facts, Loading, Section, Status } from '../components.js';
import { useApi } from '../hooks.js';

interface ContractInfo {
  address: string;
  codeSize: number;
  creator: string | null;
  txHash: string | null;
  blockNumber: number | null;
  timestamp: number | null;
  verified: boolean;
  contractName?: string;
  compilerVersion?: string;
  optimizer?: { enabled: boolean; runs: number };
  evmVersion?: string | null;
  license?: string | null;
  match?: string;
}

interface Source {
  sourcePath: string;
  sources: Record<string, { content: string }>;
  constructorArguments: string;
}

function Verified({ address }: { address: string }) {
  const source = useApi<Source>(`/contracts/${address}/source`);
  const abi = useApi<{ abi: Abi }>(`/contracts/${address}/abi`);
  return (
    <>
      <Section title="ABI">
        <Loading state={abi}>
          {({ abi: a }) => (
            <>
              <ul class="abi">
                {a.filter((e) => e.type === 'function' || e.type === 'event').map((e, i) => (
                  <li key={i} class="mono">
                    {e.type} {'name' in e ? e.name : ''}({'inputs' in e ? e.inputs.map((x) => `${x.type}${x.name ? ` ${x.name}` : ''}`).join(', ') : ''})
                    {e.type === 'function' && e.outputs.length > 0 ? ` → (${e.outputs.map((x) => x.type).join(', ')})` : ''}
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
