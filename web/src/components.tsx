// The pieces every page uses: links to chain objects, amounts with units and exact values on
// hover, tables that scroll inside themselves on a narrow screen, pagers, and SVG charts.
import type { ComponentChildren } from 'preact';
import type { Loaded } from './hooks.js';
import { ago, count, eth, exactWei, group, gwei, short, units, utc } from './format.js';

export function AddressLink({ address, label }: { address: string | null; label?: string | undefined }) {
  if (!address) return <span class="muted">—</span>;
  return (
    <a class="mono" href={`/address/${address}`} title={address}>
      {label ?? short(address)}
    </a>
  );
}

export function TxLink({ hash, full }: { hash: string; full?: boolean }) {
  return (
    <a class="mono" href={`/tx/${hash}`} title={hash}>
      {full ? hash : short(hash, 8)}
    </a>
  );
}

export function BlockLink({ number }: { number: number }) {
  return <a href={`/block/${number}`}>{group(String(number))}</a>;
}

export function Eth({ wei }: { wei: string }) {
  return <span title={exactWei(wei)}>{eth(wei)}</span>;
}

export function Gwei({ wei }: { wei: string }) {
  return <span title={exactWei(wei)}>{gwei(wei)}</span>;
}

export function TokenAmount({ value, decimals, symbol }: { value: string; decimals: number | null; symbol: string | null }) {
  const text = decimals === null ? group(value) : units(value, decimals);
  return (
    <span title={`${group(value)} (raw, ${decimals ?? 0} decimals)`}>
      {text} {symbol ?? ''}
    </span>
  );
}

export function Count({ n, unit }: { n: number | string; unit?: string }) {
  return (
    <span title={String(n)}>
      {count(n)}
      {unit ? ` ${unit}` : ''}
    </span>
  );
}

export function Age({ at }: { at: number }) {
  return <time dateTime={new Date(at * 1000).toISOString()} title={utc(at)}>{ago(at)}</time>;
}

export function Status({ status }: { status: string }) {
  return <span class={`badge ${status === 'success' || status === 'active' || status === 'pass' ? 'good' : status === 'pending' ? '' : 'bad'}`}>{status}</span>;
}

/** A definition list of facts: [label, value] rows. */
export function Facts({ rows }: { rows: [string, ComponentChildren][] }) {
  return (
    <dl class="facts">
      {rows.map(([k, v]) => (
        <div key={k}>
          <dt>{k}</dt>
          <dd>{v}</dd>
        </div>
      ))}
    </dl>
  );
}

/** A table that scrolls sideways inside its box when the screen is narrower than it. */
export function Table({ head, rows, empty, label }: { head: string[]; rows: ComponentChildren[][]; empty: string; label: string }) {
  if (rows.length === 0) return <p class="muted">{empty}</p>;
  return (
    <div class="table" role="region" aria-label={label} tabIndex={0}>
      <table>
        <thead>
          <tr>{head.map((h) => <th key={h} scope="col">{h}</th>)}</tr>
        </thead>
        <tbody>
          {rows.map((r, i) => (
            <tr key={i}>{r.map((c, j) => <td key={j}>{c}</td>)}</tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

/** Links to the previous and next pages of a keyset-paginated list, as ?cursor= URLs of this page. */
export function Pager({ base, next, prev, param = 'cursor' }: { base: string; next: string | null; prev: string | null; param?: string }) {
  if (!next && !prev) return null;
  const href = (cursor: string) => `${base}${base.includes('?') ? '&' : '?'}${param}=${encodeURIComponent(cursor)}`;
  return (
    <nav class="pager" aria-label="pages">
      {prev ? <a href={href(prev)} rel="prev">← Newer</a> : <span />}
      {next ? <a href={href(next)} rel="next">Older →</a> : <span />}
    </nav>
  );
}

/** What a load shows until its data is there: a status line or the API's error. */
export function Loading<T>({ state, children }: { state: Loaded<T>; children: (data: T) => ComponentChildren }) {
  if (state.error) return <p class="error" role="alert">{state.error.message}</p>;
  if (state.data === undefined) return <p class="muted" aria-busy="true">Loading…</p>;
  return <>{children(state.data)}</>;
}

export function Section({ title, children, id }: { title: string; children: ComponentChildren; id?: string }) {
  return (
    <section class="card" aria-labelledby={id}>
      <h2 id={id}>{title}</h2>
      {children}
    </section>
  );
}

/** A bar chart in plain SVG: one bar per point, the value and label of each in its <title>. */
export function BarChart({ points, label, format }: { points: { label: string; value: number }[]; label: string; format: (v: number) => string }) {
  const w = 600;
  const h = 140;
  const top = Math.max(0, ...points.map((p) => p.value));
  // The tallest bar fills the box; an all-zero series draws no bars.
  const max = top || 1;
  const bw = w / Math.max(1, points.length);
  const last = points[points.length - 1];
  return (
    <figure class="chart">
      <figcaption>
        {label}
        {last ? <span class="muted"> — latest: {format(last.value)}</span> : null}
      </figcaption>
      <svg viewBox={`0 0 ${w} ${h}`} preserveAspectRatio="none" role="img" aria-label={label}>
        <line x1="0" y1={h - 0.5} x2={w} y2={h - 0.5} class="axis" />
        {points.map((p, i) => {
          const bh = (p.value / max) * (h - 4);
          return (
            <rect key={p.label} x={i * bw + 1} y={h - bh} width={Math.max(1, bw - 2)} height={bh} class="bar">
              <title>{`${p.label}: ${format(p.value)}`}</title>
            </rect>
          );
        })}
      </svg>
      <div class="chart-range muted">
        <span>{points[0]?.label}</span>
        <span>max {format(top)}</span>
        <span>{last?.label}</span>
      </div>
    </figure>
  );
}
