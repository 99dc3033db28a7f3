// Envelope validation (spec 3 send flow step 3): type, to, domain, data's presence, attachments.
// Every problem is reported at once in details[], so a caller fixes a request in one round trip.
import type { Brand, BrandBook } from '../brands/brands.ts';
import type { Detail } from '../http/errors.ts';
import { isCleanBody } from '../http/json-body.ts';
import type { TemplateDefinition } from '../templates/template-schema.ts';
import { validateAttachments, type Attachment } from './attachments.ts';
import { addressProblem } from './email-address.ts';

export interface Envelope {
  template: TemplateDefinition;
  to: string;
  brand: Brand;
  data: Record<string, unknown>;
  attachments: Attachment[];
  /** The body's JSON text had no escape and no U+007F–U+009F, U+2028 or U+2029 (decision D39). */
  cleanText?: boolean;
}

export type EnvelopeResult = { ok: true; envelope: Envelope } | { ok: false; details: Detail[] };

export function validateEnvelope(
  body: unknown,
  brands: BrandBook,
  lookup: (type: string) => TemplateDefinition | undefined,
  typeNames: readonly string[],
): EnvelopeResult {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    return { ok: false, details: [{ field: 'body', message: 'must be a JSON object' }] };
  }
  const { type, to, domain, data, attachments } = body as Record<string, unknown>;
  const details: Detail[] = [];

  const template = typeof type === 'string' ? lookup(type) : undefined;
  if (type === undefined) details.push({ field: 'type', message: 'is required' });
  else if (!template) details.push({ field: 'type', message: `must be one of: ${typeNames.join(', ')}` });

  const toProblem = addressProblem(to);
  if (to === undefined) details.push({ field: 'to', message: 'is required' });
  else if (toProblem) details.push({ field: 'to', message: toProblem });

  const brand = typeof domain === 'string' ? brands.lookup(domain) : undefined;
  if (domain === undefined) details.push({ field: 'domain', message: 'is required' });
  else if (!brand) details.push({ field: 'domain', message: `must be one of: ${brands.domains.join(', ')}` });
  else if (template?.brands === 'dao' && brand.key !== 'dao') {
    details.push({
      field: 'domain',
      message: `template ${template.type} is sent only under the DAO brand (${brands.brands[0]!.domain})`,
    });
  }

  if (data === undefined) details.push({ field: 'data', message: 'is required' });
  else if (typeof data !== 'object' || data === null || Array.isArray(data))
    details.push({ field: 'data', message: 'must be an object' });

  const files = validateAttachments(attachments, details);

  if (details.length > 0 || !template || !brand) return { ok: false, details };
  return {
    ok: true,
    envelope: {
      template,
      to: to as string,
      brand,
      data: data as Record<string, unknown>,
      attachments: files,
      cleanText: isCleanBody(body),
    },
  };
}
