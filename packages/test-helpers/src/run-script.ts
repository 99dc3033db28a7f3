// Runs one of the repository's scripts (`npm run deploy`, `migrate`, `backup`…) as an operator would:
// its own Node process from the repository root, with only the given environment (and PATH, HOME).
import { spawn } from 'node:child_process';
import { join } from 'node:path';

const ROOT = join(import.meta.dirname, '..', '..', '..');

export interface ScriptResult {
  code: number | null;
  out: string;
  err: string;
}

/** `script` is a path from the repository root, e.g. `scripts/deploy.ts`. */
export function runScript(script: string, args: string[], env: Record<string, string | undefined> = {}): Promise<ScriptResult> {
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
    child.once('exit', (code) => resolve({ code, out, err }));
  });
}
