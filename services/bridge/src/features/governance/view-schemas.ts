// The JSON views of features/governance/views.ts (decision V12) as schemas, shared by the route docs
// of proposals (route-docs.ts) and of votes and history (vote-docs.ts): nat64 as decimal strings, times
// ISO-8601. The portal's types are generated from these (decision F12).
import { Type } from '@sinclair/typebox';
import { PROPOSAL_CATEGORIES } from '@domdao/canister-kit/rules';

export const Nat = Type.String({ pattern: '^[0-9]+$', description: 'a decimal nat64' });
export const Time = Type.String({ format: 'date-time' });
// The categories have one source (decision S17).
export const Category = Type.Union(PROPOSAL_CATEGORIES.map((c) => Type.Literal(c)));
export const Status = Type.Union(
  ['Created', 'Open', 'Tallied', 'Approved', 'Rejected', 'Executed', 'Expired'].map((c) => Type.Literal(c)),
);
/** The rules proposals are decided by (GET /api/governance/settings; an amendment's rules_before, decision G52). */
export const Settings = Type.Object({
  execution_window: Nat,
  voting_delay: Nat,
  rules: Type.Array(
    Type.Object({
      category: Category,
      quorum_bps: Type.Integer(),
      threshold_bps: Type.Integer(),
      voting_window: Nat,
    }),
  ),
});
export const ProposalBody = Type.Object({
  id: Nat,
  title: Type.String(),
  body: Type.String({ description: 'Markdown' }),
  category: Category,
  proposed_by: Type.String({ description: 'principal' }),
  proposed_by_name: Type.Union([Type.String(), Type.Null()], {
    description: 'display name (decision F22); null for a canister',
  }),
  status: Status,
  created_at: Time,
  voting_opens: Time,
  voting_closes: Time,
  payload: Type.Union([
    Type.Object({}, { additionalProperties: true, description: 'the category payload, nat64 as decimal strings' }),
    Type.Null(),
  ]),
  tally: Type.Union([
    Type.Object({
      yes_votes: Nat,
      no_votes: Nat,
      abstentions: Nat,
      total_eligible: Nat,
      quorum_met: Type.Boolean(),
      threshold_met: Type.Boolean(),
    }),
    Type.Null(),
  ]),
  rules_before: Type.Union([Settings, Type.Null()], {
    description:
      'an executed amendment (a ConstitutionalAmendment payload): the rules in force just before it applied, as GET /api/governance/settings answers them; null otherwise (decision G52)',
  }),
  payload_context: Type.Object(
    {
      names: Type.Record(Type.String(), Type.String(), {
        description: 'display names of the principals the payload names (recipient, admins, revocations)',
      }),
      ratified_price_usd: Type.Union([Type.Number(), Type.Null()], {
        description: 'the ratified DOM/USD price now; null before the first',
      }),
      paid_e8s: Type.Union([Type.String(), Type.Null()], {
        description: 'an executed payout: what the treasury paid, e8s',
      }),
    },
    { description: 'what the payload is read with in words (decision F43, @domdao/proposal-text)' },
  ),
});
export const Tick = Type.Object({
  price_usd: Type.Number(),
  proposal_id: Nat,
  set_by: Type.String({ description: 'principal' }),
  effective_at: Time,
});
