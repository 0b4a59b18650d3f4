// Who a request comes from, for per-IP limits (JSON-RPC over WebSocket, the explorer): IPv4
// addresses as they are, IPv6 by their /64 (one subscriber usually holds a whole /64, so single
// addresses would be free to rotate). The HTTP JSON-RPC limiter applies the same rule natively.
import { isIPv4, isIPv6 } from 'node:net';

/** The IPv4 address inside an IPv4-mapped IPv6 address, else the address unchanged. */
function unmapped(ip: string): string {
  const m = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(ip);
  return m ? m[1]! : ip;
}

/** The eight 16-bit groups of an IPv6 address. */
function ipv6Groups(ip: string): number[] {
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
