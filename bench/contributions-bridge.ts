// The bridge for the contribution benchmark, in its own process: opened the production way (PGlite
// and the embedded canisters under DATA_DIR, each ledger movement in the canisters' write-ahead log
// before its answer), seeded with BENCH_MEMBERS members signed in through HTTP, each given DOM by the
// development faucet, and one open campaign; then listening. The seed goes to BENCH_SEED_FILE.
import { writeFileSync } from 'node:fs';
import { openBridge } from '../services/bridge/src/compose/open-bridge.ts';
import { loadBridgeConfig } from '../services/bridge/src/config.ts';
import { encryptRegistration } from '@domdao/registration/seal';
import { verificationPath } from './outbox.ts';

const config = loadBridgeConfig(process.env);
const { app } = await openBridge(config, process.env);
const members = Number(process.env.BENCH_MEMBERS ?? 100);
const password = 'a long benchmark passphrase';
const origin = config.FRONTEND_ORIGINS.split(',')[0]!;
const json = (payload: unknown, cookie?: string) => ({
  payload: JSON.stringify(payload),
  headers: { 'content-type': 'application/json', origin, ...(cookie && { cookie }) },
});

const key = (await app.inject({ url: '/api/auth/registration-key' })).json() as { public_key: string };
const cookies: string[] = [];
for (let i = 0; i < members; i++) {
  const email = `giver-${i}@bench.example`;
  const fields = await encryptRegistration(key.public_key, { email, name: `Giver ${i}`, dob: '1990-05-01' });
  const r = await app.inject({
    method: 'POST',
    url: '/api/auth/register',
    ...json({ ...fields, password, tos_accepted: true }),
  });
  if (r.statusCode !== 201) throw new Error(`register: ${r.statusCode} ${r.body}`);
  if ((await app.inject({ url: verificationPath(config.DEV_OUTBOX_FILE, email) })).statusCode !== 200)
    throw new Error('verify failed');
  const login = await app.inject({ method: 'POST', url: '/auth/login', ...json({ email, password }) });
  const cookie = String(login.headers['set-cookie']).split(';')[0]!;
  if (login.statusCode !== 200 || !cookie.startsWith('session=')) throw new Error(`login: ${login.statusCode}`);
  const faucet = await app.inject({ method: 'POST', url: '/api/dev/faucet', ...json({}, cookie) });
  if (faucet.statusCode !== 200) throw new Error(`faucet: ${faucet.statusCode} ${faucet.body}`);
  cookies.push(cookie);
}
const deadline = new Date(Date.now() + 30 * 86_400_000).toISOString();
const created = await app.inject({
  method: 'POST',
  url: '/api/campaigns',
  ...json({ title: 'Bench', description: '', goal: { dom_e8s: String(10n ** 15n) }, deadline }, cookies[0]),
});
if (created.statusCode !== 201) throw new Error(`campaign: ${created.statusCode} ${created.body}`);
writeFileSync(
  process.env.BENCH_SEED_FILE!,
  JSON.stringify({ cookies, campaign: (created.json() as { id: string }).id, origin }),
);
await app.listen({ port: Number(process.env.PORT), host: '127.0.0.1' });
for (const signal of ['SIGINT', 'SIGTERM'] as const)
  process.once(signal, () => void app.close().then(() => process.exit(0)));
