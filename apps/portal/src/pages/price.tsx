// The DOM price (spec 1 price oracle): the ratified price, the one campaigns and payouts use, beside
// the oracle's market aggregate and its sources, and the history of ratified prices as a line.
import { useApi, usd, type Answer } from '../api.ts';
import { absoluteTime } from '@domdao/proposal-text';
import { localTime } from '../time.tsx';

type Ratified = Answer<'listRatifiedPrices'>['items'][number];
type Aggregate = Answer<'getDomUsdPrice'>;

/** The ratified prices as a small SVG line (one series needs no charting library, decision F3). */
export function History({ items }: { items: Ratified[] }) {
  const pts = [...items].reverse();
  if (pts.length < 2) return <p class="muted">{pts.length ? 'One ratified price so far.' : 'No history yet.'}</p>;
  const W = 600;
  const H = 160;
  const xs = pts.map((p) => Date.parse(p.effective_at));
  const ys = pts.map((p) => p.price_usd);
  // 5 % of room above and below, so a flat series is not drawn on the chart's edge.
  const [x0, x1, y0, y1] = [Math.min(...xs), Math.max(...xs), Math.min(...ys) * 0.95, Math.max(...ys) * 1.05];
  // Math.max: one instant or one price would divide by zero.
  const sx = (x: number) => 10 + ((x - x0) / Math.max(1, x1 - x0)) * (W - 20);
  const sy = (y: number) => H - 10 - ((y - y0) / Math.max(1e-12, y1 - y0)) * (H - 20);
  const d = pts.map((p, i) => `${i ? 'L' : 'M'}${sx(xs[i]!).toFixed(1)},${sy(ys[i]!).toFixed(1)}`).join(' ');
  return (
    <svg
      viewBox={`0 0 ${W} ${H}`}
      class="chart"
      role="img"
      aria-label={`Ratified DOM price from ${usd(ys[0]!)} to ${usd(ys[ys.length - 1]!)} over ${pts.length} ratifications`}
    >
      <path d={d} fill="none" stroke="currentColor" stroke-width="2" />
      {pts.map((p, i) => (
        <circle key={p.proposal_id} cx={sx(xs[i]!)} cy={sy(ys[i]!)} r="3" fill="currentColor">
          <title>
            {usd(p.price_usd)} from {localTime(p.effective_at)}
          </title>
        </circle>
      ))}
    </svg>
  );
}

export function PricePage() {
  const live = useApi<Aggregate>('/api/price/dom-usd');
  const history = useApi<Answer<'listRatifiedPrices'>>('/api/governance/price/history?limit=100');
  // The price in force is the newest ratified one: no separate request that answers 404 before the first.
  const ratified = { data: history.data?.items[0], none: history.data?.items.length === 0 };
  return (
    <>
      <h1>DOM price</h1>
      <div class="grid">
        <section class="card">
          <h2>Ratified</h2>
          {ratified.data ? (
            <>
              <p class="big">{usd(ratified.data.price_usd)}</p>
              <p class="muted">
                In force since {localTime(ratified.data.effective_at)}, by{' '}
                <a href={`/proposals/${ratified.data.proposal_id}`}>proposal #{ratified.data.proposal_id}</a>. Campaign
                USD goals and payouts use this price.
              </p>
            </>
          ) : ratified.none ? (
            <p>No price has been ratified yet: members ratify one by voting on a SetDomPrice proposal.</p>
          ) : (
            <p aria-busy="true">…</p>
          )}
        </section>
        <section class="card">
          <h2>Market (oracle)</h2>
          {live.data ? (
            <>
              <p class="big">
                {usd(live.data.price_usd)} {live.data.stale ? <span class="badge s-expired">stale</span> : null}
              </p>
              <p class="muted">
                Confidence: {live.data.confidence} · {absoluteTime(live.data.timestamp * 1000)}
              </p>
              <table>
                <caption class="sr-only">Sources</caption>
                <thead>
                  <tr>
                    <th scope="col">Source</th>
                    <th scope="col">Price</th>
                    <th scope="col">Weight</th>
                  </tr>
                </thead>
                <tbody>
                  {live.data.sources.map((s) => (
                    <tr key={s.name}>
                      <td>{s.name}</td>
                      <td>{usd(s.price)}</td>
                      <td>{s.weight}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </>
          ) : live.error ? (
            // 503 PRICE_UNAVAILABLE: before the oracle's first aggregate (spec 1), not a failure.
            <p>{live.error.status === 503 ? 'The oracle has no price yet.' : live.error.message}</p>
          ) : (
            <p aria-busy="true">…</p>
          )}
        </section>
      </div>
      <section class="card">
        <h2>History of ratified prices</h2>
        {history.data ? <History items={history.data.items} /> : <p aria-busy="true">…</p>}
      </section>
    </>
  );
}
