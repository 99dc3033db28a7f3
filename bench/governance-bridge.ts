// The bridge for the vote benchmark, in its own process: opened the production way (PGlite and the
// embedded canisters under DATA_DIR, each vote in the canisters' write-ahead log before its answer),
// seeded with BENCH_MEMBERS Active members signed in through HTTP and BENCH_PROPOSALS open
// proposals, then listening. The seed (session cookies, proposal ids) goes to BENCH_SEED_FILE.
import { writeFileSync } from 'node:fs';
import { openBridge } from '../services/bridge/src/compose/open-bridge.ts';
import { loadBridgeConfig } from '../services/bridge/src/config.ts';
import { encryptRegistration } from '@domdao/registration/seal';
import { verificationPath } from './outbox.ts';

const config = loadBridgeConfig(process.env);
const { app, canisters, db } = await openBridge(config, process.env);
const members = Number(process.env.BENCH_MEMBERS ?? 100);
const proposals = Number(process.env.BENCH_PROPOSALS ?? 500);
const password = 'a long benchmark passphrase';
const origin = config.FRONTEND_ORIGINS.split(',')[0]!;
const json = (payload: unknown) => ({
  payload: JSON.stringify(payload),
  headers: { 'content-type': 'application/json', origin },
});

const key = (await app.inject({ url: '/api/auth/registration-key' })).json() as { public_key: string };
const cookies: string[] = [];
for (let i = 0; i < members; i++) {
  const email = `voter-${i}@bench.example`;
  const fields = await encryptRegistration(key.public_key, { email, name: `Voter ${i}`, dob: '1990-05-01' });
  const r = await app.inject({
    method: 'POST',
    url: '/api/auth/register',
    ...json({ ...fields, password, tos_accepted: true }),
  });
  if (r.statusCode !== 201) throw new Error(`register: ${r.statusCode} ${r.body}`);
  const { user_id } = r.json() as { user_id: string };
  if ((await app.inject({ url: verificationPath(config.DEV_OUTBOX_FILE, email) })).statusCode !== 200)
    throw new Error('verify failed');
  const { principal } = await db
    .selectFrom('users')
    .select('principal')
    .where('id', '=', user_id)
    .executeTakeFirstOrThrow();
  if (!('Ok' in (await canisters.clients.user.record_kyc(principal, true)))) throw new Error('kyc failed');
  if (
    !(
      'Ok' in
      (await canisters.clients.user.upgrade_membership_to_active({
        principal,
        kyc_proof: new Uint8Array([1]),
        payment_proof: new Uint8Array([2]),
      }))
    )
  )
    throw new Error('upgrade failed');
  const login = await app.inject({ method: 'POST', url: '/auth/login', ...json({ email, password }) });
  const cookie = String(login.headers['set-cookie']).split(';')[0]!;
  if (login.statusCode !== 200 || !cookie.startsWith('session=')) throw new Error(`login: ${login.statusCode}`);
  cookies.push(cookie);
}
// EmergencyAction opens at once (no voting delay) and stays open 24 h.
const ids: string[] = [];
for (let i = 0; i < proposals; i++) {
  const r = await canisters.clients.governance.create_proposal({
    title: `Bench ${i}`,
    body: 'b',
    category: 'EmergencyAction',
  });
  if (!('Ok' in r)) throw new Error(`create_proposal: ${Object.keys(r.Err).join()}`);
  ids.push(String(r.Ok));
}
// Let the governance follower copy the seeding's admin events and every subscriber (the activity
// feed writes an item per member and proposal) process them first, so none of it runs during the load.
const { sql } = await import('kysely');
for (let last = '', stable = 0; stable < 3;) {
  await new Promise((r) => setTimeout(r, 1_000));
  const { rows } = await sql<{
    n: string;
  }>`select count(*)::text as n from bridge_events where source = 'governance'`.execute(db);
  const { rows: top } = await sql<{ s: string | null }>`select max(seq)::text as s from bridge_events`.execute(db);
  const cursors = await app.events.status();
  const behind = cursors.some((c) => BigInt(c.last_seq) < BigInt(top[0]!.s ?? '0'));
  const now = `${rows[0]!.n}/${behind}`;
  stable = now === last && !behind ? stable + 1 : 0;
  last = now;
}
writeFileSync(process.env.BENCH_SEED_FILE!, JSON.stringify({ cookies, proposals: ids, origin }));
await app.listen({ port: Number(process.env.PORT), host: '127.0.0.1' });
for (const signal of ['SIGINT', 'SIGTERM'] as const)
  process.once(signal, () => void app.close().then(() => process.exit(0)));
