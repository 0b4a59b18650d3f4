// Numbers with their units (ETH, gwei, token symbols) and times; the exact value goes in a title.

const WEI_PER_GWEI = 10n ** 9n;

/** `value` (an integer string) divided by 10^decimals, with at most `shown` fraction digits, grouped by thousands. */
export function units(value: string | bigint, decimals: number, shown = 6): string {
  let v = BigInt(value);
  const negative = v < 0n;
  if (negative) v = -v;
  const base = 10n ** BigInt(decimals);
  const whole = v / base;
  let frac = decimals > 0 ? (v % base).toString().padStart(decimals, '0').slice(0, shown).replace(/0+$/, '') : '';
  let text = group(whole.toString());
  if (frac) text += `.${frac}`;
  else if (v !== 0n && whole === 0n) text = `<0.${'0'.repeat(Math.max(0, shown - 1))}1`;
  return negative ? `-${text}` : text;
}

/** Digits grouped by thousands: 1234567 -> 1,234,567. */
export function group(digits: string): string {
  return digits.replace(/\B(?=(\d{3})+(?!\d))/g, ',');
}

/** wei as ETH: "1.5 ETH". */
export function eth(wei: string | bigint): string {
  return `${units(wei, 18)} ETH`;
}

/** wei as gwei: "1.000000007 gwei" (gas prices are small; up to 9 fraction digits). */
export function gwei(wei: string | bigint): string {
  return `${units(wei, 9, 9)} gwei`;
}

export function exactWei(wei: string | bigint): string {
  return `${group(BigInt(wei).toString())} wei`;
}

export { WEI_PER_GWEI };

/** A plain count or gas amount with thousands separators. */
export function count(n: number | string): string {
  return typeof n === 'number' && !Number.isInteger(n) ? n.toLocaleString('en-US', { maximumFractionDigits: 3 }) : group(String(n));
}

/** "12 s ago", "3 min ago", "2 h ago", "4 d ago" from Unix seconds. */
export function ago(unixSeconds: number, now = Date.now()): string {
  const s = Math.max(0, Math.round(now / 1000 - unixSeconds));
  if (s < 60) return `${s} s ago`;
  if (s < 3600) return `${Math.floor(s / 60)} min ago`;
  if (s < 86400) return `${Math.floor(s / 3600)} h ago`;
  return `${Math.floor(s / 86400)} d ago`;
}

/** The UTC date and time of Unix seconds: 2026-11-26 10:54:19 UTC. */
export function utc(unixSeconds: number): string {
  return `${new Date(unixSeconds * 1000).toISOString().replace('T', ' ').slice(0, 19)} UTC`;
}

/** 0x1234…abcd */
export function short(hex: string, keep = 6): string {
  return hex.length <= keep * 2 + 2 ? hex : `${hex.slice(0, keep + 2)}…${hex.slice(-4)}`;
}
