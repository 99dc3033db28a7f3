// The repo promise "the README documents every service's configuration", checked per schema.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describeConfig } from '@domdao/config';
import type { TObject } from '@sinclair/typebox';

const README = new URL('../../../README.md', import.meta.url);

/**
 * Every variable of `schema` has a README table row `| \`NAME\` | …` showing its default, inside the
 * section under the heading `section` (up to the next heading of the same level) when given.
 */
export function assertReadmeDocuments(schema: TObject, section?: string): void {
  let lines = readFileSync(README, 'utf8').split('\n');
  if (section !== undefined) {
    const start = lines.findIndex((l) => l === section);
    assert.ok(start >= 0, `README has no heading ${section}`);
    const level = /^#+/.exec(section)![0];
    const end = lines.findIndex((l, i) => i > start && l.startsWith(`${level} `));
    lines = lines.slice(start, end === -1 ? undefined : end);
  }
  for (const v of describeConfig(schema)) {
    const row = lines.find((l) => l.startsWith(`| \`${v.name}\` |`));
    assert.ok(row, `${v.name} is missing from the README configuration table`);
    if (v.default !== '(none)') assert.ok(row.includes(`\`${v.default}\``), `${v.name}: README default differs from ${v.default}`);
  }
}
