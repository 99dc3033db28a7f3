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
    suggested_budget: Type.Union([Type.Number({ minimum: 0 }), Type.Null()], { description: 'USD; null when the proposal needs no money (decision A10)' }),
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

/** The draft in the model's answer, or why it is not one. Tolerates a fenced code block around the JSON. */
export function parseDraft(content: string): { draft: Draft } | { problem: string } {
  const text = content.trim().replace(/^```(?:json)?\s*([\s\S]*?)\s*```$/i, '$1');
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return { problem: 'the answer is not JSON' };
  }
  if (!Value.Check(DraftSchema, value)) {
    const e = Value.Errors(DraftSchema, value).First();
    return { problem: `the answer does not match the draft schema (${e ? `${e.path || '/'}: ${e.message}` : 'invalid'})` };
  }
  const d = value as Draft;
  return { draft: { title: d.title.trim(), body: d.body.trim(), suggested_budget: d.suggested_budget, tags: [...new Set(d.tags.map((t) => t.trim().toLowerCase()).filter(Boolean))] } };
}
