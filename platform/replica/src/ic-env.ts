// Decision W16: the `IC_*` variables the bridge needs to use the test replica, written to REPLICA_DIR/ic.env
// on every start (the port may change), and the loopback rule of REPLICA_HOST.
import { writeFileSync } from 'node:fs';
import { isIP } from 'node:net';
import type { CanisterIds } from '@domdao/canisters';

/** 127.0.0.0/8, ::1 and localhost: the only hosts the replica listens on. */
export function isLoopback(host: string): boolean {
  if (host === 'localhost') return true;
  if (isIP(host) === 4) return host.startsWith('127.');
  if (isIP(host) === 6) return host === '::1' || host === '0:0:0:0:0:0:0:1';
  return false;
}

export function icEnv(r: { url: string; identityFile: string; ids: CanisterIds }): Record<string, string> {
  return {
    IC_HOST: r.url,
    IC_FETCH_ROOT_KEY: 'true',
    IC_IDENTITY_PEM_FILE: r.identityFile,
    IC_GOVERNANCE_CANISTER_ID: r.ids.governance,
    IC_MEMBERSHIP_CANISTER_ID: r.ids.membership,
    IC_USER_CANISTER_ID: r.ids.user,
    IC_CAMPAIGN_CANISTER_ID: r.ids.campaign,
    IC_TREASURY_CANISTER_ID: r.ids.treasury,
    IC_LEDGER_CANISTER_ID: r.ids.ledger,
  };
}

export function writeIcEnv(file: string, env: Record<string, string>): void {
  const lines = [
    '# Written by `npm run replica` (the test replica: a development and test tool, not an IC network).',
    '# Load it before starting the bridge: set -a && . ./<REPLICA_DIR>/ic.env && set +a && npm start',
    ...Object.entries(env).map(([k, v]) => `${k}=${v}`),
  ];
  writeFileSync(file, `${lines.join('\n')}\n`, { mode: 0o600 });
}
