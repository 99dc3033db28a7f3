// What the member-emails feature is given by the app (it imports no other feature).
import type { FastifyRequest, preHandlerAsyncHookHandler } from 'fastify';
import type { CanisterClients } from '@domdao/canisters';
import type { NotificationClient } from '@domdao/notification-client';
import type { Session } from '../../core/auth/sessions.ts';
import type { Db } from '../../core/db/schema.ts';
import type { EventLog } from '../../core/events/bus.ts';
import type { JobRunner } from '../../core/jobs/runner.ts';

export interface MemberEmailsOptions {
  db: Db;
  notifier: NotificationClient;
  events: EventLog;
  jobs: JobRunner;
  membership: CanisterClients['membership'];
  governance: CanisterClients['governance'];
  governanceAs(member: { user_id: string; principal: string }): Promise<CanisterClients['governance']>;
  openField(field: 'email' | 'name', sealed: string): Promise<string>;
  requireSession(req: FastifyRequest): Promise<Session>;
  /** preHandler of the admin route: cross-site rule, session and admin role (auth/guards.ts `guards.admin`, decision S2). */
  admin: preHandlerAsyncHookHandler;
  brandDomain: string;
  /** https base of links in email (decision N3). */
  linkBase: string;
  /** Where a member lands after signing in (the first front end). */
  dashboardUrl: string;
  now(): number;
}
