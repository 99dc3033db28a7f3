// What TypeScript files import from test-jobs.mjs (the runner's own test).
export declare const TASK_TIMEOUT_FACTOR: number;
export declare function watchdogMs(kind: 'TASK' | 'FILE' | 'BATCH', timeoutMs: number): number;
