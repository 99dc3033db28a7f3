// Proposal drafts (spec 2 POST /api/ai/draft): asked of the model as structured output (a JSON
// schema, which llama-server turns into a grammar and vLLM into guided decoding), then checked here
// again: a server that ignores response_format must not hand members a broken draft (decision A10).
import { Type, type Static } from '@sinclair/typebox';
import { Value } from '@sinclair/typebox/value';
import type { ChatMessage } from './inference-client.ts';

export const DraftSchema = Type.Object(
  {
    title: Type.String({ minLength: 1, maxLength: 200 }),
    body: Type.String({ minLength: 1, maxLength: 50_000, description: 'Markdown' }),
    suggested_budget: Type.Union([Type.Number({ minimum: 0 }), Type.Null()], {
      description:
        'USD; null when the proposal needs no money, or when the model gave no amount readable as USD (decisions A10, A18)',
    }),
    tags: Type.Array(Type.String({ minLength: 1, maxLength: 40 }), { maxItems: 10 }),
  },
  { additionalProperties: false },
);
export type Draft = Static<typeof DraftSchema>;

/** The OpenAI `response_format` for the draft. */
export const DRAFT_RESPONSE_FORMAT = {
  type: 'json_schema',
  json_schema: {
    name: 'proposal_draft',
    strict: true,
    schema: {
      type: 'object',
      properties: {
        title: { type: 'string', minLength: 1, maxLength: 200 },
        body: { type: 'string', minLength: 1 },
        suggested_budget: { type: ['number', 'null'], minimum: 0 },
        tags: { type: 'array', items: { type: 'string', minLength: 1, maxLength: 40 }, maxItems: 10 },
      },
      required: ['title', 'body', 'suggested_budget', 'tags'],
      additionalProperties: false,
    },
  },
} as const;

export function draftPrompt(intent: string, category: string): ChatMessage[] {
  return [
    {
      role: 'system',
      content:
        'You help members of a DAO draft governance proposals. Reply with one JSON object only: {"title": string, "body": Markdown string with sections Summary, Motivation, Plan and Budget, "suggested_budget": number of US dollars or null when no money is needed, "tags": up to 10 short lowercase strings}. The member edits the draft before submitting it.',
    },
    { role: 'user', content: `Category: ${category}\nIntent: ${intent}` },
  ];
}

/**
 * The draft in the model's answer, or why it is not one. Tolerates a fenced code block around the
 * JSON, and repairs a model's ordinary deviations instead of refusing the draft (decision A18):
 * a budget written as text in US dollars ("$1,200", "1200 USD") becomes its number, a budget that is
 * not a non-negative amount of USD ("1000 DOM", "a few thousand", -5) becomes null; tags are trimmed,
 * lowercased, deduplicated and cut to 10 (a comma-separated string is split, anything else is []);
 * a title over 200 characters is cut; unknown fields are dropped. Only a missing or empty title or
 * body, or an answer that is not a JSON object, leaves no draft.
 */
export function parseDraft(content: string): { draft: Draft; repaired: string[] } | { problem: string } {
  const text = content.trim().replace(/^```(?:json)?\s*([\s\S]*?)\s*```$/i, '$1');
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return { problem: 'the answer is not JSON' };
  }
  if (!value || typeof value !== 'object' || Array.isArray(value))
    return { problem: 'the answer is not a JSON object' };
  const v = value as Record<string, unknown>;
  const repaired: string[] = Object.keys(v).filter((k) => !(k in DraftSchema.properties));
  const title = typeof v.title === 'string' ? v.title.trim() : v.title;
  if (typeof title === 'string' && title.length > 200) repaired.push('title');
  const budget = suggestedBudget(v.suggested_budget);
  if (budget !== v.suggested_budget) repaired.push('suggested_budget');
  const tags = draftTags(v.tags);
  if (!Array.isArray(v.tags) || tags.length !== v.tags.length || tags.some((t, i) => t !== (v.tags as unknown[])[i]))
    repaired.push('tags');
  const draft = {
    title:
      typeof title === 'string'
        ? title
            .slice(0, 200)
            .replace(/[\uD800-\uDBFF]$/, '')
            .trim()
        : title,
    body: typeof v.body === 'string' ? v.body.trim() : v.body,
    suggested_budget: budget,
    tags,
  };
  if (!Value.Check(DraftSchema, draft)) {
    const e = Value.Errors(DraftSchema, draft).First();
    return {
      problem: `the answer does not match the draft schema (${e ? `${e.path || '/'}: ${e.message}` : 'invalid'})`,
    };
  }
  return { draft, repaired };
}

/** A budget in US dollars as text: "$1,200", "US$ 1200.50", "USD 1200", "1,200 dollars", "1.5k USD". */
const USD_TEXT =
  /^(?:US\$|\$|USD)?\s*(\d{1,3}(?:,\d{3})+|\d+)(\.\d+)?\s*(k|thousand|m|million)?\s*(?:USD|US\$|\$|dollars?|US dollars?)?$/i;

/** Decision A18: the model's suggested_budget as a non-negative number of USD, or null. */
export function suggestedBudget(raw: unknown): number | null {
  if (typeof raw === 'number') return Number.isFinite(raw) && raw >= 0 ? raw : null;
  if (typeof raw !== 'string') return null;
  const m = USD_TEXT.exec(raw.trim());
  if (!m) return null;
  const scale = { k: 1e3, thousand: 1e3, m: 1e6, million: 1e6 }[(m[3] ?? '').toLowerCase()] ?? 1;
  const n = Number(`${m[1]!.replace(/,/g, '')}${m[2] ?? ''}`) * scale;
  return Number.isFinite(n) ? n : null;
}

function draftTags(raw: unknown): string[] {
  const list = Array.isArray(raw) ? raw : typeof raw === 'string' ? raw.split(',') : [];
  const tags = list
    .filter((t): t is string => typeof t === 'string')
    .map((t) => t.trim().toLowerCase())
    .filter((t) => t.length > 0 && t.length <= 40);
  return [...new Set(tags)].slice(0, 10);
}
