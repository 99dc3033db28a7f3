// The variables `npm start` and the operator scripts (register, journey, backup, restore, deploy,
// migrate, build:portal) read themselves, over what the services read through their own schemas:
// declared once here, documented by `npm run docs:config` (docs/reference/config-start.md), and
// scripts/test/config-reference.test.ts fails when one of those scripts reads a variable not listed.
import { NPM_START_METRICS_PORT } from '@domdao/service-kit';
import {
  DEV_ADMIN_EMAIL,
  DEV_API_TOKEN,
  DEV_FAUCET_DOM,
  DEV_HOST,
  DEV_NOTIFICATION_TOKEN,
  DEV_TREASURY_DOM,
  DEV_VOTING_MINUTES,
  DEV_WEBHOOK_SECRET,
} from './dev-defaults.ts';

export interface ScriptVariable {
  name: string;
  default?: string;
  accepts: string;
  description: string;
}

/** `npm start`'s own variables and the development defaults it gives the services (never the services alone). */
export const START_ENV: readonly ScriptVariable[] = [
  {
    name: 'HOST',
    default: DEV_HOST,
    accepts: 'address',
    description:
      "every service's listen address (the services alone default to `0.0.0.0`); another value prints a warning, since the development secrets become reachable",
  },
  {
    name: 'GATEWAY_PORT',
    default: '3000',
    accepts: 'port',
    description: 'port of the platform gateway, the one origin to open',
  },
  { name: 'BRIDGE_PORT', default: '3200', accepts: 'port', description: "the bridge's port (its `PORT`)" },
  {
    name: 'NOTIFICATION_PORT',
    default: '3100',
    accepts: 'port',
    description: "the notification service's port (its `PORT`)",
  },
  {
    name: 'PRICE_SOURCE_PORT',
    default: '0',
    accepts: 'port 0–65535',
    description:
      'port of the development price source (a fake JSON exchange the bridge polls); `0` takes a free one, which the banner names. Not started when `PRICE_SOURCES` or `PRICE_SOURCES_FILE` is set',
  },
  {
    name: 'SHUTDOWN_GRACE_SECONDS',
    default: '8',
    accepts: 'integer 1–3600',
    description:
      "how long a SIGTERM or SIGINT lets open requests finish before what is left is cut off and the process exits 1; keep it under your process manager's kill timeout",
  },
  {
    name: 'SERVICE_TOKEN',
    default: DEV_NOTIFICATION_TOKEN,
    accepts: 'token',
    description:
      "the notification service's token, also checked by the gateway at `/notify` and used by the bridge; the development default is printed in the banner",
  },
  {
    name: 'DATA_DIR',
    default: '.data/bridge',
    accepts: 'path',
    description:
      "the bridge's embedded state (database, canisters, keys); also read by `register`, `journey`, `backup` and `restore`",
  },
  {
    name: 'DEV_OUTBOX_FILE',
    default: '<DATA_DIR>/dev-outbox.jsonl',
    accepts: 'path',
    description:
      'the development outbox where the bridge writes every link it emails; `register` and `journey` read the links there',
  },
  {
    name: 'PAYMENT_WEBHOOK_SECRET',
    default: DEV_WEBHOOK_SECRET,
    accepts: 'secret',
    description: "the payment webhook's secret; `npm run journey` signs its webhook with it",
  },
  {
    name: 'API_TOKEN',
    default: DEV_API_TOKEN,
    accepts: 'token',
    description: 'token of the operator endpoints (`POST /api/admin/price/submit-proposal`, the AI reindex)',
  },
  {
    name: 'BOOTSTRAP_ADMIN_EMAILS',
    default: DEV_ADMIN_EMAIL,
    accepts: 'emails',
    description: 'the first admin: gets the `admin` role once its address is verified',
  },
  {
    name: 'PUBLIC_URL',
    default: 'http://127.0.0.1:<GATEWAY_PORT>',
    accepts: 'URL',
    description: "the bridge's public URL: links go through the gateway",
  },
  {
    name: 'FRONTEND_ORIGINS',
    default: 'http://127.0.0.1:<GATEWAY_PORT>,http://127.0.0.1:<BRIDGE_PORT>',
    accepts: 'origins',
    description: "the gateway's origin and the bridge's own",
  },
  {
    name: 'NOTIFICATION_SERVICE_URL',
    default: 'the notification service it started',
    accepts: 'URL',
    description: 'where the bridge sends email',
  },
  {
    name: 'NOTIFICATION_SERVICE_TOKEN',
    default: '<SERVICE_TOKEN>',
    accepts: 'token',
    description: 'the token the bridge presents to the notification service',
  },
  {
    name: 'DEV_CHECKOUT',
    default: 'true',
    accepts: '`true` or `false`',
    description: "the web app's simulated card checkout through the signed webhook",
  },
  {
    name: 'DEV_FAUCET_DOM',
    default: String(DEV_FAUCET_DOM),
    accepts: 'integer',
    description: 'DOM the development faucet gives a member per request (embedded canisters only)',
  },
  {
    name: 'EMBEDDED_TREASURY_DOM',
    default: String(DEV_TREASURY_DOM),
    accepts: 'integer',
    description: "the embedded treasury's initial DOM",
  },
  {
    name: 'DEV_VOTING_MINUTES',
    default: String(DEV_VOTING_MINUTES),
    accepts: 'integer',
    description:
      'a new proposal opens a minute after it is made and closes this many minutes later (embedded canisters only)',
  },
  {
    name: 'IC_GOVERNANCE_CANISTER_ID',
    accepts: 'principal',
    description:
      'set (with the other `IC_*` variables, docs/reference/config-bridge.md): canisters on an IC network, so no faucet, treasury funding or short votes',
  },
  {
    name: 'PRICE_SOURCES',
    accepts: 'JSON',
    description: "the bridge's price sources; set, no development price source is started",
  },
  {
    name: 'PRICE_SOURCES_FILE',
    accepts: 'path',
    description: "a file of the bridge's price sources; set, no development price source is started",
  },
  {
    name: 'METRICS_PORT',
    default: String(NPM_START_METRICS_PORT),
    accepts: 'port',
    description: 'one Prometheus listener for all three services',
  },
  { name: 'METRICS_HOST', default: DEV_HOST, accepts: 'address', description: 'address of that listener' },
  { name: 'METRICS_TOKEN', accepts: 'token', description: 'bearer token a scrape must present' },
  {
    name: 'PORTAL_DIR',
    accepts: 'path',
    description: 'a built web app to serve; unset = `npm start` builds `apps/portal` when its sources changed',
  },
  {
    name: 'EMAIL_PROVIDER_API_KEY',
    accepts: 'secret',
    description: 'set: the notification service delivers (the banner says through which provider); unset: stub mode',
  },
  {
    name: 'EMAIL_PROVIDER',
    default: 'resend',
    accepts: '`resend` or `smtp`',
    description: 'named in the banner when delivering',
  },
];

/** What the operator scripts read besides `npm start`'s variables above. */
export const SCRIPT_ENV: readonly ScriptVariable[] = [
  {
    name: 'BRIDGE_URL',
    default: 'http://<HOST>:<BRIDGE_PORT>',
    accepts: 'URL',
    description:
      '`npm run register` and `npm run journey`: the bridge to talk to (else `HOST` and `BRIDGE_PORT` as `npm start` listens)',
  },
  {
    name: 'IC_HOST',
    accepts: 'URL',
    description: '`npm run deploy`, `npm run backup -- --ic`: the IC network (as the bridge reads it)',
  },
  {
    name: 'IC_IDENTITY_PEM_FILE',
    accepts: 'path',
    description: '`npm run deploy`: the deploying identity, made a controller of every canister',
  },
  {
    name: 'IC_FETCH_ROOT_KEY',
    default: 'false',
    accepts: '`true` or `false`',
    description: '`npm run deploy`: fetch the root key (a local replica only)',
  },
  {
    name: 'PORTAL_BRIDGE_ORIGIN',
    accepts: 'origin',
    description:
      '`npm run build:portal`: the bridge a web app hosted on another subdomain calls (as `--bridge-origin`)',
  },
  {
    name: 'MIGRATE_TEST_PAUSE',
    accepts: '`before-commit`',
    description:
      '`npm run migrate`, tests only (decision R52): pause after the canisters are sealed and before the database commits, so a test can kill the run there; never set it in production',
  },
];
