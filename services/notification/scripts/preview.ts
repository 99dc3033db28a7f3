// `npm run preview:emails [dir]`: renders every template for both brands to HTML and text files, with
// an index page, so a person can look at them in a browser. Uses each template's example data.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { brandsFromConfig } from '../src/brands/brands.ts';
import { loadNotificationConfig } from '../src/config.ts';
import { Composer } from '../src/rendering/compose.ts';
import { escapeText } from '../src/rendering/escape.ts';
import { templates } from '../src/templates/catalog.ts';
import type { TemplateDefinition } from '../src/templates/template-schema.ts';

export function renderPreviews(outDir: string, env: NodeJS.ProcessEnv = process.env): string[] {
  const config = loadNotificationConfig({ ...env, NODE_ENV: env.NODE_ENV ?? 'development' });
  const brands = brandsFromConfig(config);
  const defs = Object.values(templates) as unknown as TemplateDefinition[];
  const composer = new Composer(defs);
  mkdirSync(outDir, { recursive: true });
  const files: string[] = [];
  const rows: string[] = [];
  for (const t of defs) {
    for (const brand of brands.brands) {
      if (t.brands === 'dao' && brand.key !== 'dao') continue;
      const result = composer.compose(
        { template: t, brand, to: 'ada@example.com', data: structuredClone(t.example), attachments: [] },
        new Date(),
      );
      if (!result.ok) throw new Error(`${t.type} example does not render: ${JSON.stringify(result)}`);
      const base = `${t.type}.${brand.key}`;
      writeFileSync(join(outDir, `${base}.html`), result.message.html);
      writeFileSync(join(outDir, `${base}.txt`), `Subject: ${result.message.subject}\n\n${result.message.text}`);
      files.push(`${base}.html`, `${base}.txt`);
      rows.push(
        `<tr><td>${escapeText(t.type)}</td><td>${brand.key}</td><td>${escapeText(result.message.subject)}</td><td><a href="${base}.html">HTML</a> · <a href="${base}.txt">text</a></td><td>${Buffer.byteLength(result.message.html)} B</td></tr>`,
      );
    }
  }
  writeFileSync(
    join(outDir, 'index.html'),
    `<!DOCTYPE html><meta charset="utf-8"><title>Email previews</title><body style="font-family:sans-serif"><h1>Email previews (${rows.length})</h1><table cellpadding="6"><tr><th>type</th><th>brand</th><th>subject</th><th>files</th><th>HTML size</th></tr>${rows.join('')}</table></body>`,
  );
  files.push('index.html');
  return files;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const out = resolve(process.argv[2] ?? 'preview');
  const files = renderPreviews(out);
  console.log(`wrote ${files.length} files to ${out}; open ${join(out, 'index.html')}`);
}
