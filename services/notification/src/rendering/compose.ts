// Send flow steps 4 and 5 (spec 3): template data validation, rendering, template attachments first.
// Pure: no I/O, the clock comes in as an argument.
import type { ValidateFunction } from 'ajv';
import type { BrandKey } from '../brands/brands.ts';
import type { Attachment } from '../envelope/attachments.ts';
import type { Envelope } from '../envelope/envelope.ts';
import type { Detail } from '../http/errors.ts';
import {
  ajv,
  ajvDetails,
  fastValidatorFor,
  type RenderedContent,
  type TemplateDefinition,
} from '../templates/template-schema.ts';
import { subjectLine } from './escape.ts';
import { layoutHtml, layoutText } from './layout.ts';

/** Gmail clips HTML bodies past about 102 KB, hiding the footer; stay safely below. */
export const HTML_BUDGET_BYTES = 100_000;

/** UTF-8 takes at most 3 bytes per UTF-16 unit, so short HTML is known to fit without encoding it. */
function overBudget(html: string): boolean {
  return html.length * 3 > HTML_BUDGET_BYTES && Buffer.byteLength(html) > HTML_BUDGET_BYTES;
}

export interface OutboundMessage {
  type: string;
  brand: BrandKey;
  from: { name: string; address: string };
  to: string;
  subject: string;
  html: string;
  text: string;
  /** Extra MIME headers (List-Unsubscribe and friends); values are single-line by construction. */
  headers: Record<string, string>;
  attachments: Attachment[];
}

export type ComposeResult =
  | { ok: true; message: OutboundMessage }
  | { ok: false; error: 'invalid_template_data'; details: Detail[] }
  | { ok: false; error: 'render_failed'; cause: unknown };

interface Validators {
  validate: ValidateFunction;
  fast: ((data: unknown) => boolean) | undefined;
  /** For data from a body without control or separator characters (decision D39). */
  fastClean: ((data: unknown) => boolean) | undefined;
}

function validatorsOf(t: TemplateDefinition): Validators {
  return {
    validate: ajv.compile(t.schema),
    fast: fastValidatorFor(t.schema),
    fastClean: fastValidatorFor(t.schema, true),
  };
}

export class Composer {
  private readonly validators = new Map<TemplateDefinition, Validators>();

  constructor(templates: Iterable<TemplateDefinition>) {
    // Compiled once at boot: a schema error is a start-up failure, not a per-request one.
    for (const t of templates) this.validators.set(t, validatorsOf(t));
  }

  compose(envelope: Envelope, now: Date): ComposeResult {
    const { template, brand } = envelope;
    let validators = this.validators.get(template);
    if (!validators) this.validators.set(template, (validators = validatorsOf(template)));
    const { validate } = validators;
    const fast = envelope.cleanText ? validators.fastClean : validators.fast;
    const data = envelope.data; // owned by this request; defaults are filled in place
    // Valid data passes the fast check (Ajv's acceptance, decisions D37 and D39); anything else gets Ajv's verdict and
    // details.
    if (!fast?.(data) && !validate(data))
      return { ok: false, error: 'invalid_template_data', details: ajvDetails(validate.errors, 'data') };
    const crossField = template.check?.(data) ?? [];
    if (crossField.length > 0) return { ok: false, error: 'invalid_template_data', details: crossField };

    let content: RenderedContent;
    let html: string;
    try {
      content = template.render(data, { brand, now });
      html = layoutHtml(content, brand);
      // Only templates that can shrink pay for measuring.
      while (content.fit && overBudget(html)) {
        const smaller = content.fit();
        if (!smaller) break;
        content = smaller;
        html = layoutHtml(content, brand);
      }
    } catch (cause) {
      return { ok: false, error: 'render_failed', cause };
    }

    const headers: Record<string, string> = {};
    if (content.unsubscribe) {
      headers['List-Unsubscribe'] = `<${content.unsubscribe.url}>`;
      headers['List-Unsubscribe-Post'] = 'List-Unsubscribe=One-Click'; // RFC 8058
      headers['List-Id'] = `<${content.unsubscribe.listId}>`; // RFC 2919
    }
    return {
      ok: true,
      message: {
        type: template.type,
        brand: brand.key,
        from: { name: brand.name, address: brand.fromAddress },
        to: envelope.to,
        subject: subjectLine(content.subject),
        html,
        text: layoutText(content, brand),
        headers,
        attachments: [...(content.attachments ?? []), ...envelope.attachments],
      },
    };
  }
}
