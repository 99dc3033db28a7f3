// Tests that need Redis use the real server; a missing server fails the test, it is never skipped.
import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';

export const redisUrlForTests = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';

export async function requireRedis(url = redisUrlForTests): Promise<Redis> {
  const redis = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null });
  try {
    await redis.connect();
    await redis.ping();
  } catch (err) {
    redis.disconnect();
    throw new Error(
      `Redis is required for this test and is not reachable at ${url} (${(err as Error).message}); start it, see scripts/README.md "Servers and tools the tests need"`,
    );
  }
  return redis;
}

/** A key prefix of its own per test, so test files run in parallel against one server. */
export function uniquePrefix(name: string): string {
  return `test:${name}:${randomUUID()}:`;
}
