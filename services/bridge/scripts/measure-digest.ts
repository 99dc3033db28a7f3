// One-off measurement (decisions N9–N12): the digest job for N eligible members (default 10,000)
// on PGlite or PostgreSQL (`--postgres`), through the real notification service to the local provider
// stand-in. Members are inserted directly (real HPKE ciphertexts, no argon2 or canister work), each
// with one pending item. Prints the run's report and its wall time. Not a test: nothing is asserted.
//   node --import tsx services/bridge/scripts/measure-digest.ts [count] [--postgres]
import { randomUUID, randomBytes } from 'node:crypto';
import { addActivity } from '../src/features/inbox/activity.ts';
import { runDigest } from '../src/features/inbox/digest-job.ts';
import { loadKeys } from '../src/core/keys.ts';
import { createOpener } from '../src/core/identity/sealed-fields.ts';
import { BACKENDS, bridge } from '../test/harness.ts';

const count = Number(process.argv.find((a) => /^\d+$/.test(a)) ?? 10_000);
const h = await bridge(process.argv.includes('--postgres') ? BACKENDS[2] : BACKENDS[0], { LOG_LEVEL: 'warn' });
try {
  await h.app.jobs.close();
  const fields = await h.encrypt({ email: 'member@example.org', name: 'Ada Lovelace', dob: '1990-05-01' });
  const at = h.now();
  const t0 = Date.now();
  for (let i = 0; i < count; i += 1000) {
    const rows = Array.from({ length: Math.min(1000, count - i) }, () => ({
      id: randomUUID(),
      principal: randomUUID(),
      default_name: 'Measured Member',
      email_index: randomBytes(32),
      ...fields,
      password_hash: 'x',
      is_minor: false,
      roles: ['member'],
      email_verified_at: new Date(at - 86_400_000),
    }));
    await h.opened.db.insertInto('users').values(rows).execute();
    await h.opened.db
      .insertInto('digest_preferences')
      .values(
        rows.map((r) => ({
          user_id: r.id,
          digest_frequency: 'daily' as const,
          opted_in_at: new Date(at - 2 * 86_400_000),
          updated_at: new Date(at),
        })),
      )
      .execute();
  }
  await addActivity(
    h.opened.db,
    'measure:1',
    {
      category: 'Test',
      title: 'Something happened',
      body: 'For everyone.',
      deep_link: 'https://domdao.example/x',
      audience: { kind: 'all' },
    },
    new Date(at - 3_600_000),
  );
  console.log(`setup: ${count} members in ${((Date.now() - t0) / 1000).toFixed(1)} s`);
  const keys = await loadKeys(h.config);
  const opener = await createOpener(keys.hpkePrivateKey);
  const clients = h.opened.canisters.clients;
  const started = Date.now();
  const report = await runDigest(
    {
      db: h.opened.db,
      audit: { record: async () => undefined },
      notifier: h.notifier,
      events: h.app.events,
      jobs: h.app.jobs,
      membership: clients.membership,
      governance: clients.governance,
      governanceAs: async () => clients.governance,
      openField: (f, s) => opener.open(f, s),
      requireSession: () => Promise.reject(new Error('unused')),
      currentSession: async () => undefined,
      signingSecrets: keys.signingSecrets,
      tokenLifetimeMs: 30 * 86_400_000,
      linkBase: 'https://domdao.example',
      publicUrl: h.config.PUBLIC_URL,
      brandDomain: 'domdao.example',
      digestConcurrency: h.config.DIGEST_CONCURRENCY,
      now: h.now,
    },
    new Date(at),
  );
  const s = (Date.now() - started) / 1000;
  console.log(JSON.stringify(report));
  console.log(
    `digest run: ${count} eligible members in ${s.toFixed(1)} s (${(count / s).toFixed(0)} digests/s, concurrency ${h.config.DIGEST_CONCURRENCY}); provider received ${h.provider.requests.length}`,
  );
} finally {
  await h.close();
}
