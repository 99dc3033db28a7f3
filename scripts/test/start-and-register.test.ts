// test-lane: browser (decision R17: one Chromium file at a time)
// `npm start` as a new user runs it (decisions R10, R11): it listens on loopback only (decision
// R10), its banner says how to register and how the first admin gets a password, and
// `npm run register` registers an account against it end to end (sealed fields, JSON, the password
// on stdin), after which the verification link and the login work; the member web app is served
// through the gateway and renders in Chromium (decisions F1, F2). The platform runs as `npm start` runs it:
// built by esbuild, without a TypeScript loader (decision P14).
import assert from 'node:assert/strict';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { acceptsConnection, freePort, START_DEV_FLAGS } from '@domdao/test-helpers';
import { after, before, describe, it } from 'node:test';
import { chromium } from 'playwright-core';
import { buildRunPath, RUN_FLAGS } from '../build-run-path.mjs';

const root = new URL('../..', import.meta.url).pathname;

function run(
  args: string[],
  env: NodeJS.ProcessEnv,
  stdin?: string,
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const p = spawn(process.execPath, ['--import', 'tsx', ...args], {
      cwd: root,
      env,
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    p.stdout.on('data', (d) => (stdout += d));
    p.stderr.on('data', (d) => (stderr += d));
    const timer = setTimeout(() => p.kill('SIGKILL'), 60_000);
    p.once('error', reject);
    p.once('exit', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
    p.stdin.end(stdin ?? '');
  });
}

describe('npm start and npm run register', () => {
  const dir = mkdtempSync(join(tmpdir(), 'domdao-start-'));
  const built = mkdtempSync(join(tmpdir(), 'domdao-start-built-'));
  const baseEnv: NodeJS.ProcessEnv = {
    PATH: process.env.PATH,
    HOME: process.env.HOME,
    NODE_ENV: 'development',
    DATA_DIR: dir,
    LOG_LEVEL: 'info',
  };
  let child: ChildProcess | undefined;
  let banner = '';
  /** What the platform logged (JSON lines, LOG_LEVEL info). */
  let logs = '';
  let bridgePort = 0;
  let notificationPort = 0;
  let gatewayPort = 0;
  let priceSourcePort = 0;
  let bridge = '';

  before(async () => {
    bridgePort = await freePort();
    notificationPort = await freePort();
    gatewayPort = await freePort();
    priceSourcePort = await freePort();
    bridge = `http://127.0.0.1:${bridgePort}`;
    // What `npm start` runs: the run path built by esbuild, without tsx (decision P14).
    const entry = await buildRunPath(join(built, 'run'));
    child = spawn(process.execPath, [...RUN_FLAGS, entry], {
      cwd: root,
      env: {
        ...baseEnv,
        BRIDGE_PORT: String(bridgePort),
        NOTIFICATION_PORT: String(notificationPort),
        METRICS_PORT: String(await freePort()),
        GATEWAY_PORT: String(gatewayPort),
        PRICE_SOURCE_PORT: String(priceSourcePort),
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    child.stdout!.on('data', (d) => (logs += d));
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`npm start did not come up in 60 s:\n${banner}`)), 60_000);
      child!.stderr!.on('data', (d) => {
        banner += d;
        if (/DOM DAO platform is up[\s\S]*try: curl/.test(banner)) {
          clearTimeout(timer);
          resolve();
        }
      });
      child!.once('exit', (code) => {
        clearTimeout(timer);
        reject(new Error(`npm start exited with ${code}:\n${banner}`));
      });
    });
  });

  after(async () => {
    if (child && child.exitCode === null) {
      const exited = new Promise((r) => child!.once('exit', r));
      child.kill('SIGTERM');
      await Promise.race([exited, new Promise((r) => setTimeout(r, 10_000))]);
      if (child.exitCode === null) child.kill('SIGKILL');
    }
    rmSync(dir, { recursive: true, force: true });
    rmSync(built, { recursive: true, force: true });
  });

  it('decision P14: `npm start` builds the run path and runs it with the flags this test runs it with; start:dev with the flags tests start a platform from source with (R21)', () => {
    const scripts = (
      JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { scripts: Record<string, string> }
    ).scripts;
    assert.equal(scripts.start, `exec node ${RUN_FLAGS.join(' ')} scripts/run-platform.mjs`);
    // Tests that start a bridge or the platform from source start it as start:dev does (decision R21).
    assert.equal(scripts['start:dev'], `node ${START_DEV_FLAGS.join(' ')} scripts/start.ts`);
  });

  it('decision R32: the first start says it is creating the database before it goes quiet, then each migration step, then that the database is ready, all before the banner', () => {
    const up = banner.indexOf('DOM DAO platform is up');
    const creating = banner.indexOf(
      `platform: creating the database in ${dir}/pglite (first start, about a minute)…\n`,
    );
    assert.ok(creating >= 0 && creating < up, banner.slice(0, 2000));
    assert.match(banner, /\nplatform: database created in \d+\.\d s; bringing it to this release's schema…\n/);
    const steps = [...banner.matchAll(/^platform: database step (\d+) of (\d+): (\S+)$/gm)].map(
      (m) => [Number(m[1]), Number(m[2]), m[3]] as const,
    );
    assert.ok(steps.length > 10, `the steps: ${JSON.stringify(steps)}`);
    assert.deepEqual(
      steps.map(([i]) => i),
      steps.map((_, i) => i + 1),
      'each step once, in order',
    );
    assert.ok(
      steps.every(([, of]) => of === steps.length),
      'each says how many there are',
    );
    assert.equal(steps[0]![2], '001-initial');
    assert.match(banner, new RegExp(`\\nplatform: database ready: ${steps.length} steps in \\d+\\.\\d s\\n`));
    assert.ok(banner.indexOf('platform: database ready') < up);
  });

  it('decision R10: without HOST, the gateway and both services listen on 127.0.0.1 only, as the banner says (the gateway first, decision E1)', async () => {
    assert.match(
      banner,
      new RegExp(`up \\(embedded defaults\\)\\n +platform gateway +http://127\\.0\\.0\\.1:${gatewayPort} `),
    );
    assert.match(banner, new RegExp(`notification service +http://127\\.0\\.0\\.1:${notificationPort} `));
    assert.match(banner, new RegExp(`bridge service +http://127\\.0\\.0\\.1:${bridgePort} `));
    for (const port of [gatewayPort, bridgePort, notificationPort]) {
      assert.equal(await acceptsConnection(port, '127.0.0.1'), true, `127.0.0.1:${port}`);
      // 127.0.0.2 is loopback too: a 0.0.0.0 listener accepts it, a 127.0.0.1 listener does not.
      assert.equal(await acceptsConnection(port, '127.0.0.2'), false, `127.0.0.2:${port} must be refused`);
    }
  });

  it('decision S30: the banner names the API reference, which answers through the gateway under its own policy', async () => {
    const link = new RegExp(`API reference +(http://127\\.0\\.0\\.1:${gatewayPort}/api/docs) `).exec(banner);
    assert.ok(link, banner);
    const res = await fetch(link[1]!);
    assert.equal(res.status, 200);
    assert.match(await res.text(), /<div id="redoc"/);
    assert.match(
      res.headers.get('content-security-policy') ?? '',
      /^default-src 'none'; script-src 'self'; style-src 'self' 'nonce-/,
    );
  });

  it('decision R11: the banner tells how to register and how the first admin gets a password', () => {
    assert.match(banner, /npm run register -- --email \S+ --name .+ --dob \d{4}-\d{2}-\d{2}/);
    assert.match(banner, /first admin: admin@domdao\.localhost .*no password until it is registered/);
    assert.match(banner, /npm run journey` register it with the password 'a long journey passphrase'/);
  });

  it('decisions O20, O22: the banner names the price-proposal job; its development X-API-Token runs it', async () => {
    assert.match(banner, /price proposals: job price:proposal every 60 min \(min change 2 %, heartbeat 120 h\)/);
    const cmd = /run now: curl -s -X POST (\S+) -H 'x-api-token: (dev-api-token-change-me)'/.exec(banner);
    assert.ok(cmd, banner);
    assert.equal((await fetch(cmd[1]!, { method: 'POST' })).status, 401);
    // Development sources agree within a second of start: the run submits (nothing ratified yet) or,
    // when the schedule's first run already did, names the pending proposal.
    let r: Response;
    for (;;) {
      r = await fetch(cmd[1]!, { method: 'POST', headers: { 'x-api-token': cmd[2]! } });
      const body = (await r.clone().json()) as { error?: string };
      if (body.error !== 'NO_AGGREGATE') break;
      await new Promise((res) => setTimeout(res, 200));
    }
    const body = (await r.json()) as { error?: string; proposal_id?: string; source_url?: string | null };
    assert.ok(r.status === 201 || (r.status === 409 && body.error === 'PROPOSAL_PENDING'), JSON.stringify(body));
    if (r.status === 201)
      assert.equal(
        body.source_url,
        null,
        'a plain-http development bridge cites the record in the body only (decision O21)',
      );
    const list = (await (await fetch(`${bridge}/api/governance/proposals?category=SetDomPrice`)).json()) as {
      items: unknown[];
    };
    assert.equal(list.items.length, 1);
  });

  it('decision G45: the banner names the development voting times, and the governance settings are those times', async () => {
    assert.match(
      banner,
      /voting: new proposals open 1 min after they are made and close 10 min later \(DEV_VOTING_MINUTES/,
    );
    const settings = (await (await fetch(`${bridge}/api/governance/settings`)).json()) as {
      voting_delay: string;
      rules: Array<{ voting_window: string }>;
    };
    assert.equal(settings.voting_delay, String(60_000_000_000n));
    assert.ok(
      settings.rules.every((r) => r.voting_window === String(600_000_000_000n)),
      JSON.stringify(settings),
    );
  });

  it("decisions E1, F2: through the gateway, the member web app renders in Chromium, lists the price job's proposal and shows the price page, with no page or CSP error", async () => {
    const browser = await chromium.launch({
      executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
      args: [
        '--no-sandbox',
        '--disable-gpu',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
        '--no-first-run',
      ],
    });
    try {
      const page = await browser.newPage();
      const problems: string[] = [];
      page.on('pageerror', (e) => problems.push(e.message));
      page.on(
        'console',
        (m) => m.type() === 'error' && !/^Failed to load resource/.test(m.text()) && problems.push(m.text()),
      );
      const app = `http://127.0.0.1:${gatewayPort}`;
      await page.goto(`${app}/`);
      await page.waitForSelector('text=You are not signed in.');
      await page.click('header >> text=Govern');
      await page.waitForSelector('ul.list li >> text=DOM price'); // decision F56: the category's label
      await page.click('header >> text=Price');
      await page.waitForSelector('h1:has-text("DOM price")');
      assert.deepEqual(problems, []);
    } finally {
      await browser.close();
    }
  });

  it('decision R11: npm run register seals the fields, posts JSON and the account can verify and sign in', async () => {
    const env = { ...baseEnv, BRIDGE_URL: bridge };
    const r = await run(
      ['scripts/register.ts', '--email', 'grace@example.org', '--name', 'Grace Hopper', '--dob', '1990-12-09'],
      env,
      'a very long test passphrase\n',
    );
    assert.equal(r.code, 0, r.stderr);
    const id =
      /^registered grace@example\.org: user_id ([0-9a-f-]{36}), verification_pending; verification email sent$/m.exec(
        r.stdout,
      )?.[1];
    assert.ok(id, r.stdout);
    const link = /^ {2}(http:\/\/127\.0\.0\.1:\d+\/verify-email\?token=[0-9a-f-]+)$/m.exec(r.stdout)?.[1];
    assert.ok(link, `the development outbox link is printed: ${r.stdout}`);
    assert.equal((await fetch(link)).status, 200, 'the link opens the confirmation page');
    // Decision B51: the page's form sends the password chosen at registration.
    const token = new URL(link).searchParams.get('token')!;
    const confirmed = await fetch(`${new URL(link).origin}/verify-email`, {
      method: 'POST',
      body: new URLSearchParams({ token, password: 'a very long test passphrase' }),
    });
    assert.equal(confirmed.status, 200, await confirmed.clone().text());
    // The JSON route with curl, as a front end's own page would call it: the link is used now.
    const curl = spawnSync(
      'curl',
      [
        '-s',
        '-X',
        'POST',
        '-H',
        'content-type: application/json',
        '--data',
        JSON.stringify({ token, password: 'a very long test passphrase' }),
        `${bridge}/api/auth/verify-email`,
      ],
      { encoding: 'utf8' },
    );
    assert.equal(curl.status, 0, curl.stderr);
    assert.equal((JSON.parse(curl.stdout) as { error: string }).error, 'VERIFICATION_LINK_USED');

    const login = await fetch(`${bridge}/auth/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email: 'grace@example.org', password: 'a very long test passphrase' }),
    });
    assert.equal(login.status, 200, await login.clone().text());
    assert.deepEqual(await login.json(), {
      authenticated: true,
      user_id: id,
      email: 'grace@example.org',
      roles: ['member'],
    });

    const again = await run(
      ['scripts/register.ts', '--email', 'grace@example.org', '--name', 'Grace Hopper', '--dob', '1990-12-09'],
      env,
      'a very long test passphrase\n',
    );
    assert.equal(again.code, 1);
    assert.match(again.stderr, /^register: 409 EMAIL_EXISTS: /m);
  });

  it('decisions D49, B54: a password reset works under npm start end to end: the notification service takes the loopback link, the development outbox holds it, the new password signs in', async () => {
    const email = 'grace@example.org'; // registered and verified by the test above
    const requested = await fetch(`${bridge}/api/auth/password-reset/request`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email }),
    });
    assert.equal(requested.status, 202);
    const outbox = join(dir, 'dev-outbox.jsonl');
    let reset: { type: string; to: string; link: string } | undefined;
    for (
      const until = Date.now() + 15_000;
      !reset && Date.now() < until;
      await new Promise((r) => setTimeout(r, 100))
    ) {
      reset = readFileSync(outbox, 'utf8')
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l) as { type: string; to: string; link: string })
        .find((l) => l.type === 'password-reset' && l.to === email);
    }
    assert.ok(reset, 'the reset email is in the development outbox');
    assert.match(reset.link, new RegExp(`^http://127\\.0\\.0\\.1:${gatewayPort}/reset-password\\?token=`));
    assert.equal((await fetch(reset.link)).status, 200, 'the link opens the new-password page');
    const token = new URL(reset.link).searchParams.get('token')!;
    const confirmed = await fetch(`${bridge}/api/auth/password-reset/confirm`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ token, password: 'a second very long passphrase' }),
    });
    assert.equal(confirmed.status, 200, await confirmed.clone().text());
    const login = await fetch(`${bridge}/auth/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email, password: 'a second very long passphrase' }),
    });
    assert.equal(login.status, 200);
    // The reset email's fate, as the services log it: sent in stub mode, or (before D49) refused for its http:// link.
    const fate = () =>
      logs
        .split('\n')
        .find(
          (l) =>
            l.includes('"password-reset"') &&
            (l.includes('"email.stub_send"') || l.includes('"notification.send_failed"')),
        );
    for (const until = Date.now() + 15_000; !fate() && Date.now() < until;)
      await new Promise((r) => setTimeout(r, 100));
    assert.match(fate() ?? 'no log line', /"email\.stub_send"/, 'the notification service sent the reset email');
  });

  it('decision R11: npm run register explains bad input and changes nothing', async () => {
    const env = { ...baseEnv, BRIDGE_URL: bridge };
    const missing = await run(
      ['scripts/register.ts', '--email', 'x@example.org'],
      env,
      'a very long test passphrase\n',
    );
    assert.equal(missing.code, 1);
    assert.match(missing.stderr, /--email, --name and --dob are required\nusage: npm run register/);
    const weak = await run(
      ['scripts/register.ts', '--email', 'weak@example.org', '--name', 'W', '--dob', '1990-01-01'],
      env,
      'short\n',
    );
    assert.equal(weak.code, 1);
    assert.match(weak.stderr, /^register: 400 WEAK_PASSWORD: /m);
    const child13 = await run(
      ['scripts/register.ts', '--email', 'kid@example.org', '--name', 'K', '--dob', '2020-01-01'],
      env,
      'a very long test passphrase\n',
    );
    assert.equal(child13.code, 1);
    assert.match(child13.stderr, /^register: 403 COPPA_BLOCK: /m);
    const down = await run(
      [
        'scripts/register.ts',
        '--email',
        'a@example.org',
        '--name',
        'A',
        '--dob',
        '1990-01-01',
        '--bridge',
        `http://127.0.0.1:${await freePort()}`,
      ],
      env,
      'a very long test passphrase\n',
    );
    assert.equal(down.code, 1);
    assert.match(down.stderr, /did not answer .*is `npm start` running\?/);
  });

  it("decision R16: every port the platform opens is in the banner with the variable that moves it, the development price source's included", () => {
    assert.match(banner, new RegExp(`platform gateway +http://127\\.0\\.0\\.1:${gatewayPort} .*GATEWAY_PORT moves it`));
    assert.match(
      banner,
      new RegExp(`notification service +http://127\\.0\\.0\\.1:${notificationPort} .*NOTIFICATION_PORT moves it`),
    );
    assert.match(banner, new RegExp(`bridge service +http://127\\.0\\.0\\.1:${bridgePort} .*BRIDGE_PORT moves it`));
    const price = /dev price source +http:\/\/127\.0\.0\.1:(\d+) .*PRICE_SOURCE_PORT/.exec(banner);
    assert.ok(price, banner);
    assert.equal(Number(price[1]), priceSourcePort, 'PRICE_SOURCE_PORT is the port it listens on');
  });

  it('decision R16: PRICE_SOURCE_PORT that is not a port, or is taken, stops npm start with one line, no stack', async () => {
    const entry = join(built, 'run', 'start.js');
    for (const [value, said] of [
      ['65536', /^platform: PRICE_SOURCE_PORT must be a port number from 0 to 65535, got "65536"$/m],
      [
        String(priceSourcePort),
        new RegExp(`^platform: the development price source cannot listen on port ${priceSourcePort}: EADDRINUSE`, 'm'),
      ],
    ] as const) {
      const other = mkdtempSync(join(tmpdir(), 'domdao-start-port-'));
      const ports = {
        BRIDGE_PORT: String(await freePort()),
        NOTIFICATION_PORT: String(await freePort()),
        GATEWAY_PORT: String(await freePort()),
      };
      try {
        const r = await new Promise<{ code: number | null; stderr: string }>((resolve, reject) => {
          const p = spawn(process.execPath, [...RUN_FLAGS, entry], {
            cwd: root,
            env: { ...baseEnv, DATA_DIR: other, PRICE_SOURCE_PORT: value, ...ports },
            stdio: ['ignore', 'ignore', 'pipe'],
          });
          let stderr = '';
          p.stderr!.on('data', (d) => (stderr += d));
          const timer = setTimeout(() => p.kill('SIGKILL'), 60_000);
          p.once('error', reject);
          p.once('exit', (code) => {
            clearTimeout(timer);
            resolve({ code, stderr });
          });
        });
        assert.equal(r.code, 1, r.stderr);
        assert.match(r.stderr, said);
        assert.doesNotMatch(r.stderr, /^\s+at /m, 'no stack');
      } finally {
        rmSync(other, { recursive: true, force: true });
      }
    }
  });

  it('decision R16: npm run register and npm run journey find the platform by the variables npm start reads (BRIDGE_PORT, DATA_DIR; empty counts as unset)', async () => {
    // As a copied .env.example leaves them: BRIDGE_URL and DEV_OUTBOX_FILE empty.
    const env = {
      ...baseEnv,
      BRIDGE_PORT: String(bridgePort),
      BRIDGE_URL: '',
      DEV_OUTBOX_FILE: '',
      PAYMENT_WEBHOOK_SECRET: '',
    };
    const r = await run(
      ['scripts/register.ts', '--email', 'lin@example.org', '--name', 'Lin Ports', '--dob', '1990-03-04'],
      env,
      'a very long test passphrase\n',
    );
    assert.equal(r.code, 0, r.stderr);
    assert.match(
      r.stdout,
      new RegExp(
        `^verification link \\(development outbox ${dir}/dev-outbox\\.jsonl\\):\\n {2}http://127\\.0\\.0\\.1:${gatewayPort}/verify-email\\?token=`,
        'm',
      ),
    );
    const journey = await run(['scripts/journey.ts'], env);
    assert.equal(journey.code, 0, journey.stderr);
    assert.match(journey.stdout, /the member's session now shows membership Active/);
  });

  it('decision R16: with no platform at its port, or its outbox elsewhere, register and journey say so in one sentence, no stack', async () => {
    const nowhere = String(await freePort());
    const elsewhere = join(dir, 'not-the-data-dir');
    const cases = [
      {
        args: ['scripts/journey.ts'],
        env: { BRIDGE_PORT: nowhere },
        said: new RegExp(
          `^journey: the bridge at http://127\\.0\\.0\\.1:${nowhere} did not answer \\(ECONNREFUSED\\); is \`npm start\` running\\? If it is, give this command the BRIDGE_PORT \\(or BRIDGE_URL\\) and HOST it runs with$`,
          'm',
        ),
      },
      {
        args: ['scripts/register.ts', '--email', 'nobody@example.org', '--name', 'N', '--dob', '1990-01-01'],
        env: { BRIDGE_PORT: nowhere },
        said: new RegExp(
          `^register: the bridge at http://127\\.0\\.0\\.1:${nowhere} did not answer \\(ECONNREFUSED\\); is \`npm start\` running\\? .*, or --bridge$`,
          'm',
        ),
      },
      {
        args: ['scripts/journey.ts'],
        env: { BRIDGE_PORT: String(bridgePort), DATA_DIR: elsewhere },
        said: new RegExp(
          `^journey: no development outbox at ${elsewhere}/dev-outbox\\.jsonl: give this command the DATA_DIR \\(or DEV_OUTBOX_FILE\\) that npm start runs with$`,
          'm',
        ),
      },
      {
        args: ['scripts/register.ts', '--email', 'moved@example.org', '--name', 'M', '--dob', '1990-01-01'],
        env: { BRIDGE_PORT: String(bridgePort), DATA_DIR: elsewhere },
        said: new RegExp(
          `^register: registered, but the verification link cannot be shown: no development outbox at ${elsewhere}/dev-outbox\\.jsonl: give this command the DATA_DIR`,
          'm',
        ),
      },
    ];
    for (const c of cases) {
      const r = await run(c.args, { ...baseEnv, ...c.env }, 'a very long test passphrase\n');
      assert.equal(r.code, 1, `${c.args[0]}: ${r.stdout}${r.stderr}`);
      assert.match(r.stderr, c.said);
      assert.equal(r.stderr.trim().split('\n').length, 1, `one line: ${r.stderr}`);
    }
  });

  it('decision R11: on a terminal, npm run register asks for the password without echoing it', async () => {
    // `script` gives the command a pseudo-terminal; the password is typed only once the prompt is shown.
    const secret = 'terminal typed passphrase 42';
    const cmd = `${process.execPath} --import tsx scripts/register.ts --email tty@example.org --name 'Tty User' --dob 1991-02-03`;
    const p = spawn('script', ['-q', '-e', '-c', cmd, '/dev/null'], {
      cwd: root,
      env: { ...baseEnv, BRIDGE_URL: bridge, TERM: 'dumb' },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let out = '';
    const exited = new Promise<number | null>((resolve) => p.once('exit', resolve));
    const timer = setTimeout(() => p.kill('SIGKILL'), 60_000);
    await new Promise<void>((resolve, reject) => {
      p.stdout.on('data', (d) => {
        out += d;
        if (out.includes('password (12 to 128 characters): ')) resolve();
      });
      p.once('exit', () => reject(new Error(`exited before prompting: ${out}`)));
    });
    p.stdin.write(`${secret}\r`);
    const code = await exited;
    clearTimeout(timer);
    assert.equal(code, 0, out);
    assert.match(out, /registered tty@example\.org: user_id [0-9a-f-]{36}/);
    assert.ok(!out.includes(secret), `the password was echoed: ${out}`);
    const login = await fetch(`${bridge}/auth/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email: 'tty@example.org', password: secret }),
    });
    // Not verified yet: whatever the answer (200, or a refusal of unverified accounts), it is not a wrong password.
    assert.notEqual(login.status, 401, await login.text());
  });
});
