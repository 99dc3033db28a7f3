// The governance gateway's request bodies and their limits (decisions V11, V28): what a member may send.
import { Type } from '@sinclair/typebox';
import { HttpError } from '../../core/http/errors.ts';
import { CATEGORIES } from './payload.ts';

/** Decision V28: a vote's reason is at most this many characters, as the canister keeps (G34). */
export const REASON_MAX_CHARS = 1_000;

/** Decision V11: a mutation body is a few short fields; 16 KiB leaves room for propose's Markdown later. */
export const MUTATION_BODY_LIMIT = 16 * 1024;
export const ID = Type.String({ pattern: '^[0-9]{1,20}$', description: 'proposal id (decimal nat64)' });
export const voteBody = Type.Object(
  {
    proposal_id: ID,
    vote: Type.Union([Type.Literal('Yes'), Type.Literal('No'), Type.Literal('Abstain')]),
    reason: Type.Optional(
      Type.String({
        maxLength: REASON_MAX_CHARS,
        description: 'why (decision V28); shown on the proposal page without your name',
      }),
    ),
  },
  { additionalProperties: false },
);
export const executeBody = Type.Object({ proposal_id: ID }, { additionalProperties: false });
export const idParams = Type.Object({ id: ID });
/** Decision V11: propose carries Markdown; 64 KiB bounds it. */
export const PROPOSE_BODY_LIMIT = 64 * 1024;
export const proposeBody = Type.Object(
  {
    title: Type.String({ minLength: 1, maxLength: 200 }),
    body: Type.String({ maxLength: 50_000, description: 'Markdown' }),
    category: Type.Union(CATEGORIES.map((c) => Type.Literal(c))),
    payload: Type.Optional(Type.Object({}, { additionalProperties: true })),
  },
  { additionalProperties: false },
);

export function nat64(id: string): bigint {
  const n = BigInt(id);
  if (n > 0xffff_ffff_ffff_ffffn) throw new HttpError(400, 'VALIDATION_ERROR', 'proposal_id: out of range (nat64)');
  return n;
}
