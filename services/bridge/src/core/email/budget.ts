// The outgoing email budget (decision B84): how many emails requests can make the bridge send to one
// address. It is counted per (address, requesting client), never for the address alone: a stranger who
// spends a budget on someone else's address spends their own, and the owner asking from their own
// client still gets their links. A client is its address as the bridge sees it (`req.ip`, after
// TRUST_PROXY); for IPv6 the /64 network, which one subscriber or host holds whole.
import { isIP } from 'node:net';
import { HOUR_MS, type Limit } from '../auth/brute-force.ts';

/** The client a budget belongs to: an IPv4 address (also one seen through IPv6), or an IPv6 /64 prefix. */
export function clientNetwork(ip: string): string {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(ip)?.[1];
  if (mapped) return mapped;
  const addr = ip.replace(/%.*$/, '');
  if (isIP(addr) !== 6) return ip;
  const [head, tail] = addr.toLowerCase().split('::') as [string, string | undefined];
  const left = head ? head.split(':') : [];
  const right = tail ? tail.split(':') : [];
  // An embedded IPv4 tail (::a.b.c.d) lies past the first 64 bits: only its count of groups matters.
  const width = (groups: string[]) => groups.reduce((n, g) => n + (g.includes('.') ? 2 : 1), 0);
  const groups = tail === undefined ? left : [...left, ...Array<string>(8 - width(left) - width(right)).fill('0'), ...right];
  return `${groups
    .slice(0, 4)
    .map((g) => g.replace(/^0+(?=.)/, ''))
    .join(':')}::/64`;
}

/** One email to the address behind `index` at the request of the client at `ip`. */
export function mailBudget(index: Uint8Array, ip: string, limit: number): Limit {
  return { key: `mail-to:${Buffer.from(index).toString('hex')}:${clientNetwork(ip)}`, limit, windowMs: HOUR_MS };
}
