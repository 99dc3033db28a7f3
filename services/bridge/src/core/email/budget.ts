// The outgoing email budget (decision B84): how many emails requests can make the bridge send to one
// address. It is counted per (address, requesting client), never for the address alone: a stranger who
// spends a budget on someone else's address spends their own, and the owner asking from their own
// client still gets their links. A client is its address as the bridge sees it (`req.ip`, after
// TRUST_PROXY); for IPv6 the /64 network, which one subscriber or host holds whole.
import { HOUR_MS, type Limit } from '../auth/brute-force.ts';
import { clientNetwork } from '../auth/client-network.ts';

/** One email to the address behind `index` at the request of the client at `ip`. */
export function mailBudget(index: Uint8Array, ip: string, limit: number): Limit {
  return { key: `mail-to:${Buffer.from(index).toString('hex')}:${clientNetwork(ip)}`, limit, windowMs: HOUR_MS };
}
