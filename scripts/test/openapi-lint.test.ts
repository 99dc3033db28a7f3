// Both OpenAPI documents through both linters (decisions D33, B57): Redocly CLI's `recommended` rules
// and Spectral's `spectral:oas`, the pinned dev dependencies, each with the configuration beside its
// service, offline (telemetry off, every outbound connection refused by fixtures/no-network.cjs). The
// committed documents are linted; the services' own tests fail when they differ from what the routes
// generate. Any error or warning fails, with the linter's report.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../..', import.meta.url));
const offline = fileURLToPath(new URL('./fixtures/no-network.cjs', import.meta.url));

function lint(command: 'redocly' | 'spectral', service: string, args: string[]) {
  const r = spawnSync(`${root}node_modules/.bin/${command}`, args, {
    cwd: `${root}services/${service}`,
    encoding: 'utf8',
    timeout: 120_000,
    env: {
      ...process.env,
      NODE_OPTIONS: `--require ${offline}`,
      REDOCLY_TELEMETRY: 'off',
      REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true',
      NO_COLOR: '1',
    },
  });
  return { status: r.status, out: `${r.stdout}${r.stderr}` };
}

const HOW: Record<string, string> = {
  bridge:
    'docs/api/bridge.openapi.json does not lint clean. Fix the route (its RouteDoc in the feature’s route-docs.ts file, decision B124), run `npm run openapi:bridge` and commit the document; a GET that takes no input and answers no 4XX may be added to services/bridge/.redocly.lint-ignore.yaml (decision B57).',
  notification:
    'docs/api/notification.openapi.json does not lint clean: fix services/notification/src/routes/openapi.ts, then `npm run openapi` (decision D33).',
};

for (const [service, file, decision] of [
  ['bridge', 'bridge.openapi.json', 'B57'],
  ['notification', 'notification.openapi.json', 'D33'],
] as const) {
  const doc = `../../docs/api/${file}`;
  describe(`decision ${decision}: docs/api/${file} lints clean, offline`, () => {
    it(`decision ${decision}: Redocly (recommended rules): no error, no warning, no network`, () => {
      const r = lint('redocly', service, ['lint', '--config', 'redocly.yaml', '--format', 'stylish', doc]);
      assert.doesNotMatch(r.out, /NETWORK ATTEMPT/, r.out);
      assert.equal(r.status, 0, `${HOW[service]}\n${r.out}`);
      assert.match(r.out, /Your API description is valid/, r.out);
      // Node 20's deprecation banner says "warning" too; the lint result is the "You have N warnings" line.
      assert.doesNotMatch(r.out, /You have \d+ warnings?|\d+ errors?/i, `${HOW[service]}\n${r.out}`);
    });

    it(`decision ${decision}: Spectral (spectral:oas): no result down to hints, no network`, () => {
      const r = lint('spectral', service, ['lint', '--ruleset', '.spectral.yaml', '--fail-severity', 'hint', doc]);
      assert.doesNotMatch(r.out, /NETWORK ATTEMPT/, r.out);
      assert.equal(r.status, 0, `${HOW[service]}\n${r.out}`);
      assert.match(r.out, /No results with a severity of 'hint' or higher found!/, r.out);
    });
  });
}
