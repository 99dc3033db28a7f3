// `npm run openapi`: writes docs/api/notification.openapi.json from the live schemas (default brands).
import { writeFileSync } from 'node:fs';
import { SERVICE_VERSION } from '../src/app.ts';
import { brandsFromConfig } from '../src/brands/brands.ts';
import { loadNotificationConfig } from '../src/config.ts';
import { buildOpenApi } from '../src/routes/openapi.ts';
import { templates } from '../src/templates/catalog.ts';
import type { TemplateDefinition } from '../src/templates/template-schema.ts';

export const OPENAPI_PATH = new URL('../../../docs/api/notification.openapi.json', import.meta.url);

export function defaultOpenApiText(): string {
  const brands = brandsFromConfig(loadNotificationConfig({ NODE_ENV: 'development' }));
  return `${JSON.stringify(buildOpenApi(templates as unknown as Record<string, TemplateDefinition>, brands, SERVICE_VERSION), null, 2)}\n`;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  writeFileSync(OPENAPI_PATH, defaultOpenApiText());
  console.log(`wrote ${OPENAPI_PATH.pathname}`);
}
