// The README documents every service's configuration (repo promise): the IC client variables too.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { it } from 'node:test';
import { describeConfig } from '@domdao/config';
import { IcEnv } from '../src/ic/index.ts';

it('README.md documents every IC_* variable with its default', () => {
  const readme = readFileSync(new URL('../../../README.md', import.meta.url), 'utf8');
  for (const v of describeConfig(IcEnv)) {
    const row = readme.split('\n').find((l) => l.startsWith(`| \`${v.name}\` |`));
    assert.ok(row, `${v.name} is missing from the README configuration table`);
    if (v.default !== '(none)') assert.ok(row.includes(`\`${v.default}\``), `${v.name}: README default differs from ${v.default}`);
  }
});
