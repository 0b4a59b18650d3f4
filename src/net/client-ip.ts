// Who a request comes from, for per-IP limits (JSON-RPC over WebSocket, the explorer): IPv4
// addresses as they are, IPv6 by their /64 (one subscriber usually holds a whole /64, so single
// addresses would be free to rotate). The HTTP JSON-RPC limiter applies the same rule natively.
// Behind a reverse proxy the client is the rightmost X-Forwarded-For hop that is not a trusted
// proxy (--trust-proxy); forwarded headers from any other peer are ignored.
import type { IncomingHttpHeaders } from 'node:http';
import { isIPv4, isIPv6 } from 'node:net';
import { SvcError } from '../errors.js';

/** The IPv4 address inside an IPv4-mapped IPv6 address, else the address unchanged. */
function unmapped(ip: string): string {
  const m = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(ip);
  return m ? m[1]! : ip;
}

/** The eight 16-bit groups of an IPv6 address (a dotted IPv4 tail counts as the last two). */
function ipv6Groups(ip: string): number[] {
  const dotted = /^(.*:)(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(ip);
  if (dotted) {
    const [a, b, c, d] = dotted.slice(2).map(Number) as [number, number, number, number];
    ip = `${dotted[1]}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head, tail] = ip.includes('::') ? ip.split('::') : [ip, undefined];
  const part = (s: string | undefined) => (s ? s.split(':') : []);
  const left = part(head);
  const right = part(tail);
  const groups = tail === undefined ? left : [...left, ...Array<string>(8 - left.length - right.length).fill('0'), ...right];
  return groups.map((g) => parseInt(g, 16) || 0);
}

/** Whether the address is the local host (127.0.0.0/8 or ::1). */
export function isLoopback(ip: string): boolean {
  const v4 = unmapped(ip);
  if (isIPv4(v4)) return v4.startsWith('127.');
  return isIPv6(ip) && ipv6Groups(ip).every((g, i) => g === (i === 7 ? 1 : 0));
}

/** The key a per-IP limit counts under. */
export function clientKey(ip: string): string {
  const v4 = unmapped(ip);
  if (isIPv4(v4) || !isIPv6(v4)) return v4;
  return `${ipv6Groups(v4)
    .slice(0, 4)
    .map((g) => g.toString(16))
    .join(':')}::/64`;
}

/** An address as a 128-bit number (IPv4 as its IPv4-mapped IPv6 form), or undefined when it is not one. */
function addressBits(ip: string): bigint | undefined {
  const v4 = unmapped(ip);
  if (isIPv4(v4)) return v4.split('.').reduce((n, o) => (n << 8n) | BigInt(o), 0xffffn);
  const bare = ip.split('%')[0]!;
  if (!isIPv6(bare)) return undefined;
  return ipv6Groups(bare).reduce((n, g) => (n << 16n) | BigInt(g), 0n);
}

/** Raised for a --trust-proxy entry that is not an address or CIDR range. */
export class TrustedProxyError extends SvcError {
  override readonly name = 'TrustedProxyError';
  override readonly code = 'TRUSTED_PROXY';
}

/** Addresses and CIDR ranges (IPv4, IPv6) of the reverse proxies whose X-Forwarded-* headers count. */
export class TrustedProxies {
  /** Trusts no one: forwarded headers are ignored (the default). */
  static readonly none = new TrustedProxies([]);
  private readonly ranges: { bits: bigint; prefix: number }[];

  /** From entries such as `127.0.0.1`, `10.0.0.0/8`, `::1`, `fd00::/8`; throws TrustedProxyError naming a bad one. */
  constructor(entries: readonly string[]) {
    this.ranges = entries.map((entry) => {
      const [address = '', length, extra] = entry.trim().split('/');
      const bits = addressBits(address);
      const v4 = bits !== undefined && isIPv4(unmapped(address));
      const max = v4 ? 32 : 128;
      const prefix = length === undefined ? max : /^\d{1,3}$/.test(length) ? Number(length) : NaN;
      if (bits === undefined || extra !== undefined || !(prefix >= 0 && prefix <= max)) {
        throw new TrustedProxyError(`"${entry}" is not an IP address or CIDR range (like 127.0.0.1, 10.0.0.0/8 or fd00::/8)`);
      }
      // IPv4 ranges are stored on their IPv4-mapped form, so one comparison serves both families.
      return { bits, prefix: v4 ? prefix + 96 : prefix };
    });
  }

  /** The entries of a comma-separated list (the flag's and SVC_TRUST_PROXY's form), empty ones skipped. */
  static split(list: string): string[] {
    return list.split(',').map((e) => e.trim()).filter((e) => e !== '');
  }

  get empty(): boolean {
    return this.ranges.length === 0;
  }

  /** Whether `ip` is one of the trusted proxies. */
  has(ip: string): boolean {
    const bits = addressBits(ip);
    if (bits === undefined) return false;
    return this.ranges.some((r) => bits >> BigInt(128 - r.prefix) === r.bits >> BigInt(128 - r.prefix));
  }
}

/** Where a request comes from: the client's address, and whether the client's connection is HTTPS. */
export interface ClientOrigin {
  ip: string;
  https: boolean;
}

/** One X-Forwarded-For hop without a port (`1.2.3.4:5678`, `[::1]:80`). */
function hopAddress(hop: string): string {
  const bracketed = /^\[([^\]]+)\](?::\d+)?$/.exec(hop);
  if (bracketed) return bracketed[1]!;
  const v4 = /^(\d+\.\d+\.\d+\.\d+):\d+$/.exec(hop);
  return v4 ? v4[1]! : hop;
}

/**
 * The client of a request whose direct peer is `peer`: the peer itself, unless the peer is a
 * trusted proxy; then the rightmost X-Forwarded-For hop that is not a trusted proxy (the leftmost
 * when all are), and HTTPS when X-Forwarded-Proto's first value says so. A hop that is not an
 * address stops the walk at the proxy that passed it on.
 */
export function clientOrigin(peer: string, headers: IncomingHttpHeaders, trusted: TrustedProxies): ClientOrigin {
  if (trusted.empty || !trusted.has(peer)) return { ip: peer, https: false };
  const list = (v: string | string[] | undefined) => (Array.isArray(v) ? v : v === undefined ? [] : [v]).flatMap((s) => s.split(',')).map((s) => s.trim()).filter((s) => s !== '');
  const proto = list(headers['x-forwarded-proto'])[0]?.toLowerCase();
  let ip = peer;
  for (const hop of list(headers['x-forwarded-for']).reverse()) {
    const address = hopAddress(hop);
    if (addressBits(address) === undefined) break;
    ip = address;
    if (!trusted.has(address)) break;
  }
  return { ip, https: proto === 'https' };
}
