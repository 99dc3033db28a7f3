// A DAO to move (decision P22's tests): on the embedded platform, members with active memberships and
// display names, DOM from the development faucet, transfers between them, a campaign with contributions,
// delegations, and proposals in every state a proposal rests in (Created, Open, Approved, Rejected,
// Executed, Expired; Tallied lasts only while delegated ballots are counted). And what the bridge serves
// about them, read through its HTTP API, so the same view can be read after the move and compared.
import assert from 'node:assert/strict';
import type { Bridge, Jar } from './harness.ts';
import { runScript } from '@domdao/test-helpers';

const E8S = 100_000_000n;
const FEE = 10_000n;
const HOUR_MS = 3_600_000;
const DAY_MS = 24 * HOUR_MS;

export interface SeedMember {
  email: string;
  user_id: string;
  principal: string;
  jar: Jar;
}
export interface Seeded {
  members: SeedMember[];
  proposals: Record<'created' | 'open' | 'approved' | 'rejected' | 'executed' | 'expired', string>;
  campaign: string;
}

/** f over items, at most ten at a time, results in order. */
export async function inBatches<T, R>(items: T[], f: (item: T, i: number) => Promise<R>): Promise<R[]> {
  const out: R[] = [];
  for (let i = 0; i < items.length; i += 10)
    out.push(...(await Promise.all(items.slice(i, i + 10).map((x, j) => f(x, i + j)))));
  return out;
}

export async function seedPlatform(h: Bridge, n: number): Promise<Seeded> {
  const c = h.opened.canisters.clients;
  // Members are made ten at a time (each a separate sign-up), so 50 of them seed in modest time.
  const members = await inBatches([...Array(n).keys()], async (i) => {
    const email = `member${String(i).padStart(2, '0')}@domdao.example`;
    const m = await h.member(email);
    const { principal } = (await h.request({ method: 'GET', url: '/api/me/profile', jar: m.jar })).json() as {
      principal: string;
    };
    assert.ok('Ok' in (await c.user.record_kyc(principal, true)));
    assert.ok(
      'Ok' in
        (await c.user.upgrade_membership_to_active({
          principal,
          kyc_proof: new Uint8Array([1]),
          payment_proof: new Uint8Array([2]),
        })),
    );
    assert.equal(
      (
        await h.request({
          method: 'PUT',
          url: '/api/me/display-name',
          jar: m.jar,
          payload: { display_name: `Member ${i}` },
        })
      ).statusCode,
      200,
    );
    return { ...m, email, principal } as SeedMember;
  });
  const post = async (
    who: SeedMember,
    url: string,
    payload: object,
    status: number,
    headers: Record<string, string> = {},
  ) => {
    const r = await h.request({ method: 'POST', url, jar: who.jar, payload, headers });
    assert.equal(r.statusCode, status, `${url}: ${r.body}`);
    return r.json() as Record<string, string>;
  };
  // DOM for everyone, then a ring of transfers (each member sends to the next).
  await inBatches(members, (m) => post(m, '/api/dev/faucet', {}, 200));
  for (let i = 0; i < n; i++) {
    const to = members[(i + 1) % n]!;
    await post(
      members[i]!,
      '/api/me/transfers',
      { to: to.principal, amount_e8s: String(BigInt(i + 1) * E8S), fee_e8s: String(FEE) },
      201,
      {
        'idempotency-key': `seed-${i}`,
      },
    );
  }
  // A campaign and contributions to it (escrow in the campaign canister).
  const campaign = (
    await post(
      members[0]!,
      '/api/campaigns',
      {
        title: 'Community garden',
        description: 'Seeds and tools',
        goal: { dom_e8s: String(10_000n * E8S) },
        deadline: new Date(h.now() + 60 * DAY_MS).toISOString(),
      },
      201,
    )
  ).id!;
  for (let i = 1; i < Math.min(n, 11); i++)
    await post(
      members[i]!,
      `/api/campaigns/${campaign}/contributions`,
      { amount: { dom_e8s: String(BigInt(i) * E8S) } },
      201,
    );
  // Delegations: the last fifth of the members delegate to member 1, before any vote opens.
  for (const m of members.slice(n - Math.floor(n / 5))) {
    const r = await h.request({
      method: 'PUT',
      url: '/api/governance/delegation',
      jar: m.jar,
      payload: { delegate: members[1]!.principal, show_name: true },
    });
    assert.equal(r.statusCode, 200, r.body);
  }

  const tick = async () => {
    for (let i = 0; i < 5; i++) await h.opened.canisters.platform!.tick();
  };
  const signIn = async () => {
    await inBatches(members, async (m) => (m.jar = (await h.login(m.email)).jar));
  };
  const propose = async (body: object) => (await post(members[2]!, '/api/governance/propose', body, 201)).proposal_id!;
  const proposal = async (id: string) =>
    (await h.request({ method: 'GET', url: `/api/governance/proposals/${id}` })).json() as {
      status: string;
      voting_closes: string;
    };
  const votes = async (id: string, vote: 'Yes' | 'No', voters: SeedMember[]) => {
    for (const [i, m] of voters.entries())
      await post(m, '/api/governance/vote', { proposal_id: id, vote, reason: `reason ${i}` }, 200);
  };
  const advance = async (ms: number) => {
    h.advance(ms);
    await tick();
    await signIn();
  };
  const voters = members.slice(0, Math.max(3, Math.floor(n / 2)));
  // A payout in USD cannot run without a DOM price: approved, it waits for its execution deadline.
  const payout = {
    title: 'Pay the gardener',
    body: 'Ten dollars',
    category: 'TreasuryPayout',
    payload: { recipient: members[3]!.principal, amount: { usd: 10 } },
  };
  const executed = await propose({ title: 'Paint the fence', body: 'Green.', category: 'General' });
  const rejected = await propose({ title: 'Pave the garden', body: 'Grey.', category: 'General' });
  const expired = await propose(payout);
  await advance(HOUR_MS + 1000);
  await votes(executed, 'Yes', voters);
  await votes(rejected, 'No', voters);
  await votes(expired, 'Yes', voters);
  await advance(Date.parse((await proposal(executed)).voting_closes) - h.now() + 1000);
  await advance(8 * DAY_MS);
  const approved = await propose(payout);
  await advance(HOUR_MS + 1000);
  await votes(approved, 'Yes', voters);
  await advance(Date.parse((await proposal(approved)).voting_closes) - h.now() + 1000);
  const open = await propose({ title: 'Plant trees', body: 'Shade.', category: 'General' });
  await advance(HOUR_MS + 1000);
  await votes(open, 'Yes', voters.slice(0, 3));
  const created = await propose({ title: 'A bench', body: 'Oak.', category: 'General' });
  const proposals = { created, open, approved, rejected, executed, expired };
  for (const [state, id] of Object.entries(proposals))
    assert.equal((await proposal(id)).status.toLowerCase(), state, `proposal ${id}`);
  return { members, proposals, campaign };
}

type Call = (url: string, jar?: Jar) => Promise<{ statusCode: number; json(): unknown; body: string }>;

/** What the bridge serves about the seeded DAO, less what is the embedded platform's own (the faucet). */
export async function servedView(call: Call, seeded: Seeded, jars: Jar[]) {
  const get = async (url: string, jar?: Jar) => {
    const r = await call(url, jar);
    assert.equal(r.statusCode, 200, `${url}: ${r.body}`);
    return r.json() as Record<string, unknown>;
  };
  const members = [];
  for (const i of seeded.members.keys()) {
    const jar = jars[i]!;
    const session = await get('/auth/session', jar);
    const { faucet_e8s: _f, faucet_per_day: _d, ...balance } = await get('/api/me/balance', jar);
    const history = await get('/api/me/transactions?limit=50', jar);
    members.push({
      session: { user_id: session.user_id, roles: session.roles, membership_status: session.membership_status },
      profile: await get('/api/me/profile', jar),
      balance,
      history: history.items,
      receipts: await get('/api/governance/my-receipts', jar),
      delegation: await get('/api/governance/delegation', jar),
    });
  }
  const proposals: Record<string, unknown> = {};
  for (const id of Object.values(seeded.proposals)) proposals[id] = await get(`/api/governance/proposals/${id}`);
  return {
    members,
    proposals,
    list: await get('/api/governance/proposals'),
    campaign: {
      campaign: await get(`/api/campaigns/${seeded.campaign}`),
      contributions: await get(`/api/campaigns/${seeded.campaign}/contributions`),
    },
    treasury: await get('/api/treasury'),
  };
}

/** `npm run migrate` with these arguments and only this environment (and PATH, HOME). */
export const runMigrate = (args: string[], env: Record<string, string | undefined> = {}) =>
  runScript('scripts/migrate.ts', args, env);
