// Decision F43: what a proposal does, in words, before the vote and after: the same sentence in a list
// row as in the member's activity and emails (@domdao/proposal-text), the detail on the page. Names and
// the ratified price come with the proposal (payload_context); the rules in force from the settings
// the page reads anyway; the oracle's price only where a price is proposed.
import { describePayload, type RulesNow } from '@domdao/proposal-text';
import { Fragment } from 'preact';
import { useApi, type Answer } from '../api.ts';
import type { Proposal } from './at-a-glance.tsx';

type Readable = Pick<Proposal, 'category' | 'payload' | 'payload_context' | 'status' | 'rules_before'>;

function text(p: Readable, rules: RulesNow | undefined, oracle?: number | null) {
  return describePayload(p.category, p.payload, {
    names: p.payload_context.names,
    ratified_price_usd: p.payload_context.ratified_price_usd,
    paid_e8s: p.payload_context.paid_e8s,
    rules_now: rules ?? null,
    rules_before: p.rules_before,
    status: p.status,
    ...(oracle !== undefined && { oracle_price_usd: oracle }),
  });
}

/** A list row's one line. */
export function PayloadLine({ p, rules }: { p: Readable; rules: RulesNow | undefined }) {
  return (
    <div class="what" data-testid="payload-summary">
      {text(p, rules).summary}
    </div>
  );
}

/** The proposal page's "What it does" card: the sentence, then each part (before → after where it changes something). */
export function PayloadCard({ p, rules }: { p: Readable; rules: RulesNow | undefined }) {
  // The oracle's aggregate answers 503 before its first price: asked only where a price is proposed.
  const wantsOracle = p.category === 'SetDomPrice' || (p.payload !== null && 'SetDomPrice' in p.payload);
  const oracle = useApi<Answer<'getDomUsdPrice'>>(wantsOracle && p.status !== 'Executed' ? '/api/price/dom-usd' : null);
  const t = text(
    p,
    rules,
    wantsOracle && p.status !== 'Executed' ? (oracle.data?.price_usd ?? (oracle.error ? null : undefined)) : undefined,
  );
  return (
    <section class="card" aria-labelledby="does-h" data-testid="payload">
      <h2 id="does-h">{p.status === 'Executed' ? 'What it did' : 'What it does'}</h2>
      <p class="big-line">{t.summary}.</p>
      <dl class="summary payload">
        {t.lines.map((l) => (
          <Fragment key={l.label}>
            <dt>{l.label}</dt>
            <dd dir="auto">{l.text}</dd>
          </Fragment>
        ))}
      </dl>
    </section>
  );
}
