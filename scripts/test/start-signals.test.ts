// `npm start` under a process manager (decision R14): systemd, Docker, a CI runner or `kill` signal
// the one process they know, npm's, and nothing else. Each case spawns `npm start` itself and
// signals npm's PID only; afterwards no process of the platform's tree may remain (found by a marker
// in their environment, whatever their parent or group), every port it listened on is closed, and a
// request in flight when the signal came was answered.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connect } from 'node:net';
import { acceptsConnection } from '@domdao/test-helpers';
import { after, afterEach, before, describe, it } from 'node:test';
import { seedEmbeddedDatabase } from '@domdao/bridge-service/testing/embedded-template';
import {
  endLeftovers,
  markedProcesses,
  platformPorts,
  startNpm as startPlatform,
  unlessHung,
  type Started,
} from '@domdao/test-helpers/npm-start';

let current: string | undefined;

/** Starts npm start (@domdao/test-helpers/npm-start) and remembers its marker for afterEach. */
function startNpm(...args: Parameters<typeof startPlatform>): Started {
  const s = startPlatform(...args);
  current = s.marker;
  return s;
}

/** The development price source's port, from the banner. */
function pricePort(banner: string): number {
  const m = /local fake JSON source at http:\/\/127\.0\.0\.1:(\d+)\//.exec(banner);
  assert.ok(m, banner);
  return Number(m[1]);
}

/**
 * A login whose headers and half of whose body have reached the gateway: it has the request in
 * flight (it streams it on to the bridge). `finish` sends the rest and resolves with the raw answer;
 * `closed` once the connection closed.
 */
async function requestInFlight(port: number): Promise<{ finish: () => Promise<string>; closed: Promise<string> }> {
  const body = JSON.stringify({ email: 'nobody@example.org', password: 'not the password of anyone' });
  const half = Math.floor(body.length / 2);
  const socket = connect({ host: '127.0.0.1', port });
  let answer = '';
  socket.setEncoding('utf8').on('data', (d: string) => (answer += d));
  socket.on('error', () => {});
  const closed = new Promise<string>((resolve) => socket.once('close', () => resolve(answer)));
  await new Promise<void>((resolve) => socket.once('connect', resolve));
  await new Promise<void>((resolve) =>
    socket.write(
      `POST /auth/login HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\nConnection: close\r\n\r\n${body.slice(0, half)}`,
      () => resolve(),
    ),
  );
  // On loopback those bytes are in the gateway's receive queue now. A request on a connection opened
  // after them is answered only once the gateway's event loop has read every connection that was
  // ready before it, so once it is answered the login is in flight.
  assert.equal(
    (await fetch(`http://127.0.0.1:${port}/gateway/health`, { headers: { connection: 'close' } })).status,
    200,
  );
  assert.equal(answer, '', 'nothing is answered before the body is complete');
  /** Resolves with the raw answer once it is complete (its Content-Length) or the connection closed. */
  const answered = new Promise<string>((resolve) => {
    const check = () => {
      const end = answer.indexOf('\r\n\r\n');
      const length = /\r\ncontent-length: (\d+)\r\n/i.exec(answer)?.[1];
      if (end >= 0 && length !== undefined && Buffer.byteLength(answer.slice(end + 4)) >= Number(length))
        resolve(answer);
    };
    socket.on('data', check);
    void closed.then(() => resolve(answer));
  });
  // Not end(): a client that half-closes has its request abandoned by Node's server.
  return { closed, finish: () => (socket.write(body.slice(half)), answered) };
}

async function assertNothingLeft(s: Started, extraPorts: number[] = []): Promise<void> {
  const left = markedProcesses(s.marker);
  assert.deepEqual(
    left,
    [],
    `processes of the platform still running after npm exited:\n${left.map((p) => `${p.pid} ${p.cmd}`).join('\n')}\n${s.output()}`,
  );
  for (const port of [...s.ports, ...extraPorts])
    assert.equal(await acceptsConnection(port), false, `127.0.0.1:${port} still accepts connections`);
}

describe('decision R14: a signal to npm start ends the whole platform', () => {
  const dir = mkdtempSync(join(tmpdir(), 'domdao-signals-'));
  // Shared by the cases that start on existing data: the embedded database copied from the run's
  // template (decision R13); the case named for it starts on a new directory.
  const data = join(dir, 'data');
  before(() => seedEmbeddedDatabase(join(data, 'pglite')));

  afterEach(async () => {
    if (current) await endLeftovers(current);
    current = undefined;
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  const cases = [
    { signal: 'SIGTERM', group: false, what: "SIGTERM to npm's PID only (a process manager)" },
    { signal: 'SIGINT', group: false, what: "SIGINT to npm's PID only" },
    // The platform gets this one twice: from the terminal and forwarded by npm.
    { signal: 'SIGINT', group: true, what: "SIGINT to npm's whole process group (Ctrl-C in a terminal)" },
  ] as const;
  for (const { signal, group, what } of cases) {
    it(`${what}: the request in flight is answered, npm exits 0, every port closes and no process remains`, async () => {
      // SHUTDOWN_GRACE_SECONDS at its upper limit is accepted.
      const s = startNpm(
        data,
        await platformPorts(),
        signal === 'SIGINT' && !group ? { SHUTDOWN_GRACE_SECONDS: '3600' } : {},
      );
      await unlessHung(s.waitFor(/DOM DAO platform is up[\s\S]*try: curl/), 'start', s);
      const price = pricePort(s.output());
      const login = await requestInFlight(s.gateway);
      process.kill(group ? -s.npm.pid! : s.npm.pid!, signal);
      // The platform says it is stopping and then waits for the login, which is sent only now. (Before
      // decision R14, only npm's shell died: nothing said so, and the platform served on.)
      await unlessHung(
        Promise.race([s.waitFor(new RegExp(`platform: ${signal} received: stopping`)), s.exited]),
        'the platform saying it stops',
        s,
      );
      const answer = await unlessHung(login.finish(), 'the answer to the request in flight', s);
      assert.match(
        answer,
        /^HTTP\/1\.1 401 Unauthorized\r\n[\s\S]*"error":"INVALID_CREDENTIALS"/,
        `the request in flight was not answered:\n${answer}\n${s.output()}`,
      );
      const exit = await unlessHung(s.exited, 'npm exiting', s);
      assert.deepEqual(exit, { code: 0, signal: null }, s.output());
      assert.match(s.output(), /platform: stopped/);
      await assertNothingLeft(s, [price]);
    });
  }

  it('decision R14: a request still open when the grace period (SHUTDOWN_GRACE_SECONDS=1, its lower limit) ends is cut off; npm exits non-zero and nothing remains', async () => {
    const s = startNpm(data, await platformPorts(), { SHUTDOWN_GRACE_SECONDS: '1' });
    await unlessHung(s.waitFor(/DOM DAO platform is up[\s\S]*try: curl/), 'start', s);
    const price = pricePort(s.output());
    const open = await requestInFlight(s.gateway);
    process.kill(s.npm.pid!, 'SIGTERM');
    const exit = await unlessHung(s.exited, 'npm exiting', s);
    assert.match(s.output(), /platform: not stopped within 1 s: exiting with requests still open/);
    assert.equal(exit.code, 1, s.output());
    assert.doesNotMatch(await open.closed, /HTTP\/1\.1 [2-5]\d\d /, 'the open request got no answer: it was cut off');
    await assertNothingLeft(s, [price]);
  });

  it('decision R14: SIGTERM while the first start is still creating the database ends the creating child too', async () => {
    const s = startNpm(join(dir, 'fresh'), await platformPorts());
    // Waits for the platform's initdb child to exist (it runs for seconds on a new data directory).
    await new Promise<void>((resolve, reject) => {
      const look = () => {
        if (markedProcesses(s.marker).some((p) => p.cmd.includes('pglite-initdb'))) return resolve();
        if (s.npm.exitCode !== null) return reject(new Error(`npm exited before initdb started:\n${s.output()}`));
        setTimeout(look, 20);
      };
      look();
    });
    process.kill(s.npm.pid!, 'SIGTERM');
    await unlessHung(s.exited, 'npm exiting', s);
    await assertNothingLeft(s);
  });

  for (const value of ['0', '3601', 'soon']) {
    it(`decision R14: SHUTDOWN_GRACE_SECONDS=${value} (outside 1 to 3600) is refused with a clear error before anything starts`, async () => {
      const s = startNpm(join(dir, `bad-${value}`), await platformPorts(), { SHUTDOWN_GRACE_SECONDS: value });
      const exit = await Promise.race([
        s.exited,
        s.waitFor(/DOM DAO platform is up/).then(() => assert.fail(`started despite SHUTDOWN_GRACE_SECONDS=${value}`)),
      ]);
      assert.equal(exit.code, 1, s.output());
      assert.match(s.output(), /platform: invalid configuration:\n {2}- SHUTDOWN_GRACE_SECONDS: /);
      await assertNothingLeft(s);
    });
  }
});
