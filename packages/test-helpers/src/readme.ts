// The repo promise "every service's configuration is documented" (decision S29), checked per schema
// against the generated reference docs/reference/config-<name>.md (`npm run docs:config`).
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describeConfig } from '@domdao/config';
import type { TObject } from '@sinclair/typebox';

const ROOT = new URL('../../../', import.meta.url);

/**
 * Every variable of `schema` has a table row `| \`NAME\` | …` showing its default in
 * docs/reference/config-`reference`.md, inside the section under the heading `section` (up to the
 * next heading of the same level) when given.
 */
export function assertConfigReferenceDocuments(schema: TObject, reference: string, section?: string): void {
  const file = `docs/reference/config-${reference}.md`;
  let lines = readFileSync(new URL(file, ROOT), 'utf8').split('\n');
  if (section !== undefined) {
    const start = lines.findIndex((l) => l === section);
    assert.ok(start >= 0, `${file} has no heading ${section}`);
    const level = /^#+/.exec(section)![0];
    const end = lines.findIndex((l, i) => i > start && l.startsWith(`${level} `));
    lines = lines.slice(start, end === -1 ? undefined : end);
  }
  for (const v of describeConfig(schema)) {
    const row = lines.find((l) => l.startsWith(`| \`${v.name}\` |`));
    assert.ok(row, `${v.name} is missing from ${file} (run npm run docs:config)`);
    if (v.default !== '(none)')
      assert.ok(
        row.includes(`\`${v.default}\``),
        `${v.name}: ${file} default differs from ${v.default} (run npm run docs:config)`,
      );
  }
}
