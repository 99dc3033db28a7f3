// GET /health/ready (decision B72): whether this instance can serve, by what it needs. Liveness
// (`/health`, spec 2; `/api/v1/health`, spec 3) stays as the specs define it: it says the process
// answers; readiness says its dependencies answer too, and which do not.

/** One dependency's check: resolves when it answers, throws (or times out) when it does not. */
export type ReadinessCheck = () => Promise<unknown>;

export interface ReadinessAnswer {
  status: 'ready' | 'unavailable';
  /** Every check by name: `up` or `down`. */
  checks: Record<string, 'up' | 'down'>;
  /** The names of the checks that are down, in the order they were declared (empty when ready). */
  down: string[];
}

/** Longest a check may take before it counts as down. */
export const READINESS_TIMEOUT_MS = 2000;

/** Runs every check at once, each bounded by `timeoutMs`; 200 when all are up, else 503 with the list. */
export async function checkReadiness(
  checks: Record<string, ReadinessCheck>,
  timeoutMs = READINESS_TIMEOUT_MS,
  onDown?: (name: string, reason: string) => void,
): Promise<{ statusCode: 200 | 503; body: ReadinessAnswer }> {
  const names = Object.keys(checks);
  const results = await Promise.all(
    names.map(async (name) => {
      let timer: NodeJS.Timeout | undefined;
      try {
        await Promise.race([
          checks[name]!(),
          new Promise((_, reject) => {
            timer = setTimeout(() => reject(new Error(`no answer within ${timeoutMs} ms`)), timeoutMs);
          }),
        ]);
        return 'up' as const;
      } catch (err) {
        onDown?.(name, err instanceof Error ? err.message : String(err));
        return 'down' as const;
      } finally {
        clearTimeout(timer);
      }
    }),
  );
  const body: ReadinessAnswer = { status: 'ready', checks: {}, down: [] };
  names.forEach((name, i) => {
    body.checks[name] = results[i]!;
    if (results[i] === 'down') body.down.push(name);
  });
  if (body.down.length > 0) body.status = 'unavailable';
  return { statusCode: body.down.length > 0 ? 503 : 200, body };
}

/** A service's readiness check of another over HTTP: up when `url` answers 2xx within the timeout. */
export function httpCheck(
  url: string,
  timeoutMs = READINESS_TIMEOUT_MS,
  headers: Record<string, string> = {},
): ReadinessCheck {
  return async () => {
    const res = await fetch(url, { headers, signal: AbortSignal.timeout(timeoutMs) });
    await res.body?.cancel();
    if (!res.ok) throw new Error(`${url} answered ${res.status}`);
  };
}
