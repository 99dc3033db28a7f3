// A campaign's progress bar (decision F3), on the list of campaigns and on a campaign's own page.
import { dom, usd, type Answer } from '../api.ts';

/** A campaign as the bridge answers it (decision F12: from the OpenAPI document). */
export type Campaign = Answer<'getCampaign'>;

export function Progress({ c }: { c: Campaign }) {
  const pct = Math.min(100, c.progress.pct_complete);
  // A USD goal is measured at the ratified DOM price: before the first there is nothing to measure against.
  if ('usd' in c.goal && c.progress.price_tick_id === null)
    return (
      <p class="muted">
        Goal {usd(c.goal.usd)} · {dom(c.progress.raised_dom)} DOM raised. Progress in dollars shows once members ratify
        a DOM price (see <a href="/price">Price</a>); until then contribute in DOM.
      </p>
    );
  return (
    <div>
      <div
        class="bar"
        role="progressbar"
        aria-valuemin={0}
        aria-valuemax={100}
        aria-valuenow={Math.round(pct)}
        aria-label={`${c.title}: ${pct.toFixed(0)} % funded`}
      >
        <div
          class="fill"
          // Through the CSSOM, which decision F2's `style-src 'self'` allows (a style attribute it would not).
          ref={(el) => {
            el?.style.setProperty('width', `${pct}%`);
          }}
        />
      </div>
      <p class="muted">
        {dom(c.progress.raised_dom)} DOM raised
        {c.progress.raised_usd !== null ? ` (${usd(c.progress.raised_usd)})` : ''} of{' '}
        {'usd' in c.goal ? usd(c.goal.usd) : `${dom(c.goal.dom_e8s)} DOM`} · {c.progress.pct_complete.toFixed(0)} %
      </p>
    </div>
  );
}
