// Decision V19: within one instance, runs of one job wait for each other in memory (the lease orders
// instances, but cannot tell two runs of one instance apart once the clock has moved past it).
/** How long runNow waits at least for a run of its job in this instance whose end is being recorded. */
export const RELEASE_GRACE_MS = 250;

/** Whether `p` settles before `deadline` (a Date.now() value). */
export async function settlesBy(p: Promise<unknown>, deadline: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<false>((r) => (timer = setTimeout(() => r(false), Math.max(0, deadline - Date.now()))));
  try {
    return await Promise.race([
      p.then(
        () => true,
        () => true,
      ),
      late,
    ]);
  } finally {
    clearTimeout(timer);
  }
}
