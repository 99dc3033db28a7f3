// How a service started as `node …/main.ts` (npm run bridge, npm run gateway) runs: a refusal at start
// (bad configuration, a data directory in use) is one line naming the service on stderr and exit 1,
// not a stack trace; SIGINT and SIGTERM close it (exit 0, or 1 when closing fails). Anything else
// thrown at start stays an error with its stack.

type Refusal = abstract new (...args: never[]) => Error;

export async function runService(
  name: string,
  start: () => Promise<{ app: { close(): Promise<unknown> } }>,
  refusals: readonly Refusal[],
): Promise<void> {
  try {
    const { app } = await start();
    for (const signal of ['SIGINT', 'SIGTERM'] as const)
      process.once(
        signal,
        () =>
          void app.close().then(
            () => process.exit(0),
            () => process.exit(1),
          ),
      );
  } catch (err) {
    if (refusals.some((refusal) => err instanceof refusal)) {
      console.error(`${name}: ${(err as Error).message}`);
      process.exit(1);
    }
    throw err;
  }
}
