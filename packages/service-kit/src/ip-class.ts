// source_ip_class (spec 3 "Events"): the auth.unauthorized event and every access line (decision D50).
import ipaddr from 'ipaddr.js';

export type IpClass = 'private' | 'loopback' | 'public';

const PRIVATE_RANGES = new Set(['private', 'uniqueLocal', 'linkLocal', 'carrierGradeNat']);

/**
 * IPv4 and IPv6 (IPv4-mapped IPv6 is judged as the IPv4 address). RFC 1918, RFC 6598 shared space,
 * link-local and IPv6 unique-local count as private; an unparseable address counts as public, the
 * cautious reading for a security log.
 */
export function sourceIpClass(ip: string | undefined): IpClass {
  if (!ip || !ipaddr.isValid(ip)) return 'public';
  const range = ipaddr.process(ip).range();
  if (range === 'loopback') return 'loopback';
  return PRIVATE_RANGES.has(range) ? 'private' : 'public';
}
