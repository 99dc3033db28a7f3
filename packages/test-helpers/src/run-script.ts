// Runs one of the repository's scripts (`npm run deploy`, `migrate`, `backup`…) as an operator would:
// its own Node process from the repository root, with only the given environment (and PATH, HOME).
import { spawn } from 'node:child_process';
import { join } from 'node:path';

const ROOT = join(import.meta.dirname, '..', '..', '..');

export interface ScriptResult {
  code: number | null;
  out: string;
  /** stderr without its structured log lines: what the operator reads (decision R51). */
  err: string;
  /** stderr's structured log lines (pino's JSON objects), parsed. */
  logs: Array<Record<string, unknown>>;
}

function splitStderr(raw: string): { err: string; logs: Array<Record<string, unknown>> } {
  const logs: Array<Record<string, unknown>> = [];
  const text: string[] = [];
  for (const line of raw.split(/(?<=\n)/)) {
    let parsed: unknown;
    try {
      parsed = line.startsWith('{') ? JSON.parse(line) : undefined;
    } catch {
      parsed = undefined;
    }
    if (parsed !== null && typeof parsed === 'object' && !Array.isArray(parsed))
      logs.push(parsed as Record<string, unknown>);
    else text.push(line);
  }
  return { err: text.join(''), logs };
}

/** `script` is a path from the repository root, e.g. `scripts/deploy.ts`. */
export function runScript(
  script: string,
  args: string[],
  env: Record<string, string | undefined> = {},
): Promise<ScriptResult> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['--import', 'tsx', script, ...args], {
      cwd: ROOT,
      env: { PATH: process.env.PATH, HOME: process.env.HOME, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (err += d));
    child.once('exit', (code) => resolve({ code, out, ...splitStderr(err) }));
  });
}
