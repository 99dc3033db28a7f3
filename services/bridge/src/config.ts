// Environment of the bridge service (spec 2), validated at start-up. Secrets left unset on embedded
// defaults are generated once and kept in DATA_DIR/keys.json (mode 0600); production refuses that.
import type { Static } from '@sinclair/typebox';
import { ConfigError, loadConfig } from '@domdao/config';
import { BridgeEnv } from './config-schema.ts';
import { canonicalEmail } from './core/identity/email.ts';
import { parsePriceSources } from './core/price-sources.ts';

export type BridgeConfig = Static<typeof BridgeEnv>;

export function loadBridgeConfig(env: NodeJS.ProcessEnv = process.env): BridgeConfig {
  const c = loadConfig(BridgeEnv, env);
  const problems: string[] = [];
  if (c.SESSION_STORE === 'redis' && !c.SESSION_REDIS_URL)
    problems.push('SESSION_REDIS_URL: required when SESSION_STORE=redis');
  if (c.COOKIE_DOMAIN !== undefined && !/^\.[a-z0-9.-]+$/.test(c.COOKIE_DOMAIN))
    problems.push('COOKIE_DOMAIN: must start with a dot, e.g. .domdao.example (spec 2 Session cookie)');
  if (c.DATABASE_MIGRATION_URL !== undefined && c.DATABASE_URL === undefined)
    problems.push('DATABASE_MIGRATION_URL: needs DATABASE_URL (the embedded database has one role, decision B99)');
  if (c.API_TOKEN !== undefined && c.API_TOKEN.length < 16) problems.push('API_TOKEN: at least 16 characters');
  if (c.INFERENCE_URL !== undefined && !/^https?:\/\/[^/]+/.test(c.INFERENCE_URL))
    problems.push(`INFERENCE_URL: ${c.INFERENCE_URL} is not an http(s) URL`);
  if (c.ACCESS_TOKEN !== undefined && (c.ACCESS_TOKEN.length < 16 || !/^[A-Za-z0-9._~+/-]+=*$/.test(c.ACCESS_TOKEN))) {
    problems.push('ACCESS_TOKEN: at least 16 characters of a bearer token (letters, digits, . _ ~ + / -)');
  }
  if (!isOrigin(c.PUBLIC_URL.replace(/\/+$/, '').replace(/^(\w+:\/\/[^/]+).*$/, '$1')))
    problems.push(`PUBLIC_URL: ${c.PUBLIC_URL} is not an http(s) URL`);
  if (!/^[A-Z]{3}$/.test(c.MEMBERSHIP_PRICE_CURRENCY) || c.MEMBERSHIP_PRICE_CURRENCY === 'XXX')
    problems.push('MEMBERSHIP_PRICE_CURRENCY: an ISO 4217 code in capitals, e.g. USD');
  for (const origin of origins(c.FRONTEND_ORIGINS))
    if (!isOrigin(origin)) problems.push(`FRONTEND_ORIGINS: ${origin} is not an origin (scheme://host[:port])`);
  problems.push(...parsePriceSources(c).problems);
  // Decision B83: a bootstrap admin is matched exactly, so each entry must be an address registration accepts.
  for (const entry of (c.BOOTSTRAP_ADMIN_EMAILS ?? '').split(',').filter((s) => s.trim() !== '')) {
    const canonical = canonicalEmail(entry);
    if (!('address' in canonical))
      problems.push(`BOOTSTRAP_ADMIN_EMAILS: ${entry.trim()}: ${canonical.message.replace(/^email /, '')}`);
  }
  for (const name of ['SIGNING_SECRET', 'SIGNING_SECRET_PREVIOUS'] as const)
    if (c[name] !== undefined && c[name].length < 32) problems.push(`${name}: at least 32 characters`);
  if (c.EMAIL_LINK_BASE_URL !== undefined && !/^https:\/\/[^\s/?#]+(\/[^\s?#]*)?$/.test(c.EMAIL_LINK_BASE_URL))
    problems.push('EMAIL_LINK_BASE_URL: an https URL without query (digest links must be https, spec 3)');
  for (const name of ['BRAND_DAO_PRIMARY_COLOR', 'BRAND_DAO_BACKGROUND_COLOR'] as const)
    if (!/^#[0-9A-Fa-f]{6}$/.test(c[name])) problems.push(`${name}: a colour #RRGGBB`);
  if (c.BRAND_DAO_LOGO_URL !== undefined && !/^(https:\/\/[^\s/?#]+|\/)[^\s]*$/.test(c.BRAND_DAO_LOGO_URL))
    problems.push('BRAND_DAO_LOGO_URL: an https URL or a path starting with /');
  if (c.PRICE_STALENESS_SECONDS < 2 * c.PRICE_POLL_SECONDS)
    problems.push(
      'PRICE_STALENESS_SECONDS: must be at least twice PRICE_POLL_SECONDS, or one slow poll makes the price stale',
    );
  if (c.NODE_ENV === 'production') {
    for (const name of [
      'HPKE_PRIVATE_KEY',
      'BLIND_INDEX_KEY',
      'SESSION_DATA_KEY',
      'MEMBER_IDENTITY_SECRET',
      'SIGNING_SECRET',
      'COOKIE_DOMAIN',
      'DATABASE_URL',
    ] as const) {
      if (c[name] === undefined) problems.push(`${name}: required in production`);
    }
    // Decision B102: scaling out is a deployment choice; embedded canisters cannot follow it.
    if (!env.IC_GOVERNANCE_CANISTER_ID && !c.BRIDGE_SINGLE_INSTANCE)
      problems.push(
        "BRIDGE_SINGLE_INSTANCE: required in production with the embedded canisters (no IC_GOVERNANCE_CANISTER_ID), which are one process's state: set BRIDGE_SINGLE_INSTANCE=true to run this one bridge, or give it canisters on an IC network (IC_*) to run several",
      );
    if (c.DEV_OUTBOX_FILE !== undefined)
      problems.push('DEV_OUTBOX_FILE: development only; it writes the links of every email to a file');
    if (c.DEV_CHECKOUT)
      problems.push('DEV_CHECKOUT: development only; it lets anyone signed in pay with a simulated card');
    if (c.DEV_FAUCET_DOM > 0) problems.push('DEV_FAUCET_DOM: development only; it mints DOM for anyone signed in');
    if (c.DEV_VOTING_MINUTES > 0)
      problems.push('DEV_VOTING_MINUTES: development only; it overrides the voting times of the constitution');
  }
  if (problems.length) throw new ConfigError(problems);
  return c;
}

/** Where links in members' email point (decision N3): EMAIL_LINK_BASE_URL, else https://EMAIL_BRAND_DOMAIN; no trailing slash. */
export function emailLinkBase(c: BridgeConfig): string {
  return (c.EMAIL_LINK_BASE_URL ?? `https://${c.EMAIL_BRAND_DOMAIN}`).replace(/\/+$/, '');
}

export function origins(list: string): string[] {
  return list
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
}

/**
 * The origins trusted like a front end: the configured ones, then the bridge's own (its login and
 * home pages post to it; decision B48). The first configured front end stays the default target.
 */
export function frontendOrigins(config: Pick<BridgeConfig, 'FRONTEND_ORIGINS' | 'PUBLIC_URL'>): Set<string> {
  return new Set([...origins(config.FRONTEND_ORIGINS), new URL(config.PUBLIC_URL).origin]);
}

/** Where a user goes when no other target applies (after login, after verifying): the first front end. */
export function firstOrigin(config: Pick<BridgeConfig, 'FRONTEND_ORIGINS' | 'PUBLIC_URL'>): string {
  return [...frontendOrigins(config)][0]!;
}

function isOrigin(s: string): boolean {
  try {
    const u = new URL(s);
    return (u.protocol === 'https:' || u.protocol === 'http:') && u.origin === s;
  } catch {
    return false;
  }
}
