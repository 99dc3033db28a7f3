// The client address class an audit line carries instead of the address (decision B62): an address is
// personal data, its class is what an operator needs (an attack from outside or a caller inside). The
// classes and ranges are the notification service's `source_ip_class` (spec 3 "Events"): an address
// that cannot be read counts as public, the cautious reading for a security log.
import { BlockList, isIP } from 'node:net';

export type ClientClass = 'loopback' | 'private' | 'public';

const loopback = new BlockList();
loopback.addSubnet('127.0.0.0', 8, 'ipv4');
loopback.addAddress('::1', 'ipv6');

// RFC 1918, carrier-grade NAT (RFC 6598), link-local, IPv6 unique-local and link-local.
const internal = new BlockList();
for (const [net, bits] of [
  ['10.0.0.0', 8],
  ['172.16.0.0', 12],
  ['192.168.0.0', 16],
  ['100.64.0.0', 10],
  ['169.254.0.0', 16],
] as const)
  internal.addSubnet(net, bits, 'ipv4');
internal.addSubnet('fc00::', 7, 'ipv6');
internal.addSubnet('fe80::', 10, 'ipv6');

export function clientClass(ip: string | undefined): ClientClass {
  if (!ip) return 'public';
  // An IPv4 address seen through an IPv6 socket (::ffff:a.b.c.d) is classed as the IPv4 address.
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(ip)?.[1];
  const addr = mapped ?? ip;
  const family = isIP(addr);
  if (family === 0) return 'public';
  const type = family === 4 ? 'ipv4' : 'ipv6';
  if (loopback.check(addr, type)) return 'loopback';
  if (internal.check(addr, type)) return 'private';
  return 'public';
}
