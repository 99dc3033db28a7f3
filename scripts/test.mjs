#!/usr/bin/env node
// One runner for the whole repo: node:test, TypeScript through tsx, one process per test file.
// Node 20 has no glob in `--test`, so the files are listed here.
import { readdirSync } from 'node:fs';
import { join, relative } from 'node:path';
import { spawnSync } from 'node:child_process';

const root = new URL('..', import.meta.url).pathname;
const skip = new Set(['node_modules', '.git', '.data', 'preview', 'dist']);

function find(dir, out = []) {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (skip.has(entry.name)) continue;
    const path = join(dir, entry.name);
    if (entry.isDirectory()) find(path, out);
    else if (entry.name.endsWith('.test.ts')) out.push(relative(root, path));
  }
  return out;
}

const filter = process.argv.slice(2);
const files = find(root).filter((f) => filter.length === 0 || filter.some((p) => f.includes(p))).sort();
if (files.length === 0) {
  console.error('no test files matched');
  process.exit(1);
}
const result = spawnSync(
  process.execPath,
  ['--import', 'tsx', '--test', '--test-reporter=spec', `--test-concurrency=${process.env.TEST_CONCURRENCY ?? 2}`, ...files],
  { cwd: root, stdio: 'inherit', env: { ...process.env, NODE_ENV: 'test' } },
);
process.exit(result.status ?? 1);
