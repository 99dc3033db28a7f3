// `.env.example` names every variable of both services (their config schemas), the
// notification client's, the IC clients' and `npm start`'s, each with a comment; nothing unknown.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { it } from 'node:test';
import { BridgeEnv } from '../../services/bridge/src/config-schema.ts';
import { NotificationEnv } from '../../services/notification/src/config.ts';
import { GatewayEnv } from '../../services/gateway/src/config.ts';

const root = new URL('../..', import.meta.url);
// Read by scripts rather than a service's config schema: the ports, URLs and grace period of npm start (the price
// source's port too, decision R16), the IC client's, and the portal build's (PORTAL_BRIDGE_ORIGIN).
const EXTRA = [
  'NOTIFICATION_PORT',
  'BRIDGE_PORT',
  'GATEWAY_PORT',
  'PRICE_SOURCE_PORT',
  'SHUTDOWN_GRACE_SECONDS',
  'BRIDGE_URL',
  'NOTIFICATION_SERVICE_URL',
  'NOTIFICATION_SERVICE_TOKEN',
  'IC_HOST',
  'IC_IDENTITY_PEM_FILE',
  'IC_FETCH_ROOT_KEY',
  'IC_GOVERNANCE_CANISTER_ID',
  'IC_MEMBERSHIP_CANISTER_ID',
  'IC_USER_CANISTER_ID',
  'IC_CAMPAIGN_CANISTER_ID',
  'IC_TREASURY_CANISTER_ID',
  'IC_LEDGER_CANISTER_ID',
  'PORTAL_BRIDGE_ORIGIN',
];

it('.env.example lists every variable of the services and the gateway, each once and commented', () => {
  const lines = readFileSync(new URL('.env.example', root), 'utf8').split('\n');
  const names: string[] = [];
  lines.forEach((line, i) => {
    const m = /^([A-Z][A-Z0-9_]*)=/.exec(line);
    if (!m) return;
    names.push(m[1]!);
    assert.match(lines[i - 1] ?? '', /^#\s+\S/, `${m[1]} has a comment line above it`);
  });
  const expected = new Set([
    ...Object.keys(BridgeEnv.properties),
    ...Object.keys(NotificationEnv.properties),
    ...Object.keys(GatewayEnv.properties),
    ...EXTRA,
  ]);
  assert.equal(new Set(names).size, names.length, 'no variable twice');
  const missing = [...expected].filter((n) => !names.includes(n));
  const unknown = names.filter((n) => !expected.has(n));
  assert.deepEqual(
    { missing, unknown },
    { missing: [], unknown: [] },
    'add a new variable to .env.example (with a comment and a safe placeholder); its reference in docs/reference/ is generated (npm run docs:config)',
  );
  // Safe placeholders: no secret is filled in.
  for (const secret of [
    'SERVICE_TOKEN',
    'EMAIL_PROVIDER_API_KEY',
    'HPKE_PRIVATE_KEY',
    'BLIND_INDEX_KEY',
    'SESSION_DATA_KEY',
    'ACCESS_TOKEN',
    'PAYMENT_WEBHOOK_SECRET',
    'NOTIFICATION_SERVICE_TOKEN',
  ]) {
    assert.ok(lines.includes(`${secret}=`), `${secret} is left empty`);
  }
});

it('LICENSE is the Apache-2.0 text package.json names; .nvmrc pins Node 20', () => {
  const pkg = JSON.parse(readFileSync(new URL('package.json', root), 'utf8')) as { license: string };
  assert.equal(pkg.license, 'Apache-2.0');
  const license = readFileSync(new URL('LICENSE', root), 'utf8');
  assert.match(license, /Apache License\s+Version 2\.0, January 2004/);
  assert.match(license, /END OF TERMS AND CONDITIONS/);
  assert.equal(readFileSync(new URL('.nvmrc', root), 'utf8'), '20\n');
});
