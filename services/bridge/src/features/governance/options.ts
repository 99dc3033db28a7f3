// What the governance gateway is given (decisions V8–V12): its routes (routes.ts, votes.ts, delegation.ts,
// delegate-profiles.ts) take these options from the composition root.
import type { FastifyRequest, preHandlerAsyncHookHandler } from 'fastify';
import type { CanisterClients } from '@domdao/canisters';
import type { MemberLimiter } from '../../core/auth/member-limits.ts';
import type { Session } from '../../core/auth/sessions.ts';
import type { Db } from '../../core/db/schema.ts';
import type { DisplayNames } from '../../core/identity/display-names.ts';

export type Governance = CanisterClients['governance'];

export interface GovernanceGatewayOptions {
  /** Cross-site rule, bearer-defect rule and the session (decision V10). */
  requireSession(req: FastifyRequest): Promise<Session>;
  /** The governance canister called as this member (embedded: as the principal; IC: signed with the member's key). */
  governanceAs(member: Pick<Session, 'user_id' | 'principal'>): Governance | Promise<Governance>;
  /** The bridge's own client, for public reads. */
  governance: Governance;
  /** preHandler of the admin routes: cross-site rule, session and admin role (auth/guards.ts `guards.admin`, decision S2). */
  admin: preHandlerAsyncHookHandler;
  /** The in-bridge event log the governance follower fills (decision V3), for the admin event log. */
  db: Db;
  /** principal → display name, for proposers and voters (decision F22). */
  names: DisplayNames;
  /** Per-member limits: proposals (decision V35), delegation changes (decision V36). */
  limit: MemberLimiter;
  /** Decision V33: the key the delegators list's cursors are sealed with. */
  cursorKey: Uint8Array;
  /** The bridge's clock (decision B81): when a delegate statement was written. */
  now(): number;
  /** Decision V29: tells the inbox a member voted (their delegators may be represented by it). */
  announceVote?(proposal_id: string, voter: string, vote: string): Promise<void>;
}
