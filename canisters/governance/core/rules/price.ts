// Spec 1 "Execution rules for SetDomPrice" rule 5 and SetDomPricePayload: which ratified price is in
// force at a moment. Every executed SetDomPrice proposal leaves one entry; the price in force is the
// entry that took effect most recently and has not expired. When it expires, the previous price
// applies again (the entry before it, if that one has not expired too), so nothing is ever deleted.
export interface PriceEntry {
  price_usd: number;
  proposal_id: bigint;
  /** The governance canister's own principal (text). */
  set_by: string;
  /** When the price took or takes effect, ns: execution time, or the payload's effective_at. */
  effective_at: bigint;
  /** When it stops applying, ns; absent = until replaced. */
  expires_at?: bigint;
}

export { isStale, type DomPriceTick } from '@domdao/canister-kit/rules';
import { isSourceUrl, SOURCE_URL_RULE, type DomPriceTick } from '@domdao/canister-kit/rules';

export function toTick(e: PriceEntry): DomPriceTick {
  return { price_usd: e.price_usd, set_by: e.set_by, proposal_id: e.proposal_id, timestamp: e.effective_at };
}

/**
 * The entry in force at `now`, or undefined when no price applies. `entries` may be in any order;
 * among entries effective at the same instant the later proposal wins.
 */
export function priceInForce(entries: Iterable<PriceEntry>, now: bigint): PriceEntry | undefined {
  let best: PriceEntry | undefined;
  for (const e of entries) {
    if (e.effective_at > now) continue;
    if (e.expires_at !== undefined && now >= e.expires_at) continue;
    if (
      !best ||
      e.effective_at > best.effective_at ||
      (e.effective_at === best.effective_at && e.proposal_id > best.proposal_id)
    )
      best = e;
  }
  return best;
}

/** SetDomPricePayload validation at proposal creation (InvalidPayload otherwise). Times are ns. */
export function setDomPriceProblem(
  p: { price_usd: number; effective_at?: bigint; expires_at?: bigint; source_url?: string },
  now: bigint,
): string | undefined {
  if (typeof p.price_usd !== 'number' || !Number.isFinite(p.price_usd) || p.price_usd <= 0)
    return 'price_usd must be a finite number above 0';
  if (p.expires_at !== undefined && p.expires_at <= (p.effective_at ?? now))
    return 'expires_at must be after effective_at (or after now when effective_at is omitted)';
  if (p.source_url !== undefined && !isSourceUrl(p.source_url)) return `source_url must be ${SOURCE_URL_RULE}`;
  return undefined;
}
