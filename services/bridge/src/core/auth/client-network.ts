// Who a per-client limit counts (decisions B84, B119, V37): the client's address as the bridge sees it
// (`req.ip`, after TRUST_PROXY). An IPv6 client is its /64: one subscriber or host is given the whole
// network, so counting single addresses would give it 2^64 budgets. An IPv4 address seen through an
// IPv6 socket (`::ffff:a.b.c.d`) is that IPv4 address.
import { isIP } from 'node:net';

/** The client an address belongs to: an IPv4 address (also one seen through IPv6), or an IPv6 /64 prefix. */
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
  const groups =
    tail === undefined ? left : [...left, ...Array<string>(8 - width(left) - width(right)).fill('0'), ...right];
  return `${groups
    .slice(0, 4)
    .map((g) => g.replace(/^0+(?=.)/, ''))
    .join(':')}::/64`;
}
