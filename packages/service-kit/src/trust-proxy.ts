import type { IncomingMessage } from 'node:http';
import proxyAddr from '@fastify/proxy-addr';
/** TRUST_PROXY: `true`/`false`, a hop count, or comma-separated addresses and CIDRs (Fastify's forms). */
export function parseTrustProxy(value: string): boolean | string[] | ((address: string, hop: number) => boolean) {
  if (value === 'true') return true;
  if (value === 'false') return false;
  if (/^\d+$/.test(value)) {
    const hops = Number(value);
    return (_address, hop) => hop < hops;
  }
  return value
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
}

/**
 * The client's address as Fastify's `request.ip` gives it under the same TRUST_PROXY (the last
 * untrusted hop of X-Forwarded-For), for code that serves requests on Node's objects (the notification
 * service's front door, decision D44) and must log the same source_ip_class (decision D50).
 */
export function clientAddress(trust: ReturnType<typeof parseTrustProxy>): (req: IncomingMessage) => string | undefined {
  if (trust === false) return (req) => req.socket.remoteAddress;
  const fn = trust === true ? () => true : typeof trust === 'function' ? trust : proxyAddr.compile(trust);
  return (req) => {
    const all = proxyAddr.all(req, fn);
    return all[all.length - 1];
  };
}
