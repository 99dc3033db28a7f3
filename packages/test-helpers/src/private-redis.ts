// A Redis server of the test's own (redis-server on a free port, nothing kept on disk), for tests that
// make Redis fail: the machine's shared server is never stopped. Fails, never skips, when the binary is
// missing.
import { spawn, type ChildProcess } from 'node:child_process';
import { Redis } from 'ioredis';
import { freePort } from './free-port.ts';

export interface PrivateRedis {
  /** redis://127.0.0.1:<port> */
  url: string;
  /** Ends the server by its PID (SIGKILL, as a crash would: its connections are reset). */
  kill(): Promise<void>;
  /** Stops the server without closing its connections (SIGSTOP), as a host lost without a reset looks to its clients. */
  pause(): void;
  /** Lets a paused server go on (SIGCONT). */
  resume(): void;
  /** A crash and a restart on the same port: the server comes back empty, as Redis without persistence does. */
  restart(): Promise<PrivateRedis>;
}

export async function startPrivateRedis(
  bin = process.env.REDIS_SERVER_BIN ?? 'redis-server',
  onPort?: number,
): Promise<PrivateRedis> {
  const port = onPort ?? (await freePort());
  const child: ChildProcess = spawn(
    bin,
    ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'],
    { stdio: 'ignore' },
  );
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  let spawnFailed: Error | undefined;
  const spawnError = new Promise<never>((_, reject) =>
    child.once('error', (e) =>
      reject(
        (spawnFailed = new Error(
          `redis-server is required for this test and could not be started (${e.message}); see scripts/README.md "Servers and tools the tests need"`,
        )),
      ),
    ),
  );
  void spawnError.catch(() => undefined); // raced below; an error after the start is not this helper's to report
  // A test process that dies before its cleanup must not leave the server running.
  const reap = () => child.kill('SIGKILL');
  process.once('exit', reap);
  const url = `redis://127.0.0.1:${port}`;
  const deadline = Date.now() + 10_000;
  for (;;) {
    const probe = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null });
    probe.on('error', () => undefined); // a refused probe rejects connect() below
    try {
      await Promise.race([probe.connect().then(() => probe.ping()), spawnError]);
      break;
    } catch {
      if (spawnFailed || Date.now() > deadline || child.exitCode !== null) {
        child.kill('SIGKILL');
        process.off('exit', reap);
        throw spawnFailed ?? new Error(`a private redis-server did not start on port ${port}`);
      }
      await new Promise((r) => setTimeout(r, 50));
    } finally {
      probe.disconnect();
    }
  }
  return {
    url,
    kill: async () => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
      await exited;
      process.off('exit', reap);
    },
    pause: () => void child.kill('SIGSTOP'),
    resume: () => void child.kill('SIGCONT'),
    restart: async () => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
      await exited;
      process.off('exit', reap);
      return startPrivateRedis(bin, port);
    },
  };
}
