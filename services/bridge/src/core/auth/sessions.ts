// Spec 2 sessions (decision B1): opaque random ids of 256 bits handed out only in the cookie, stored
// as SHA-256; a new id at every login; idle and absolute lifetimes; roles cached at login.
import { createHash, randomBytes } from 'node:crypto';
import type { SessionRecord, SessionStore } from './session-store.ts';

export interface Session {
  user_id: string;
  email: string;
  principal: string;
  roles: string[];
  expires_at: number;
}

export interface SessionManagerOptions {
  store: SessionStore;
  sealer: { seal(s: string): string; open(s: string): string };
  idleMs: number;
  absoluteMs: number;
  now?: () => number;
  /** Told of each session created (the bridge's metrics, decision B69). */
  onCreated?: () => void;
}

/** Writes of last_seen_at are spared unless this much time has passed (a read-mostly path). */
const TOUCH_AFTER_MS = 60_000;
const ID_PATTERN = /^[A-Za-z0-9_-]{43}$/;

export const hashId = (id: string) => createHash('sha256').update(id).digest();

export function sessionManager(o: SessionManagerOptions) {
  const now = o.now ?? Date.now;
  const ttl = (r: SessionRecord, t: number) => Math.max(1, Math.min(r.expires_at - t, o.idleMs));
  return {
    async create(s: Omit<Session, 'expires_at'>): Promise<{ id: string; expires_at: number }> {
      const id = randomBytes(32).toString('base64url');
      const t = now();
      const record: SessionRecord = {
        user_id: s.user_id,
        data: o.sealer.seal(JSON.stringify({ email: s.email, principal: s.principal })),
        roles: s.roles,
        created_at: t,
        last_seen_at: t,
        expires_at: t + o.absoluteMs,
      };
      await o.store.create(hashId(id), record, ttl(record, t));
      o.onCreated?.();
      return { id, expires_at: record.expires_at };
    },

    /** The live session of a cookie value, or undefined (unknown, malformed, idle too long, past its absolute end). */
    async read(id: string | undefined): Promise<Session | undefined> {
      if (id === undefined || !ID_PATTERN.test(id)) return undefined;
      const h = hashId(id);
      const r = await o.store.get(h);
      if (!r) return undefined;
      const t = now();
      if (t >= r.expires_at || t - r.last_seen_at >= o.idleMs) {
        await o.store.delete(h);
        return undefined;
      }
      if (t - r.last_seen_at >= TOUCH_AFTER_MS) await o.store.touch(h, { ...r, last_seen_at: t }, ttl(r, t));
      let data: { email: string; principal: string };
      try {
        data = JSON.parse(o.sealer.open(r.data)) as { email: string; principal: string };
      } catch {
        return undefined; // sealed under another key: treat as no session
      }
      return {
        user_id: r.user_id,
        email: data.email,
        principal: data.principal,
        roles: r.roles,
        expires_at: r.expires_at,
      };
    },

    /** Replaces the roles a live session carries (the derived `voter` role, decision B53). */
    async setRoles(id: string, roles: string[]): Promise<void> {
      if (!ID_PATTERN.test(id)) return;
      const h = hashId(id);
      const r = await o.store.get(h);
      if (!r) return;
      await o.store.touch(h, { ...r, roles }, ttl(r, now()));
    },

    async destroy(id: string | undefined): Promise<void> {
      if (id !== undefined && ID_PATTERN.test(id)) await o.store.delete(hashId(id));
    },

    destroyAllFor: (userId: string) => o.store.deleteForUser(userId),

    /** What an admin may see of a user's live sessions: times and roles, never ids or sealed data. */
    async listFor(
      userId: string,
    ): Promise<Array<{ created_at: string; last_seen_at: string; expires_at: string; roles: string[] }>> {
      const t = now();
      const live = (await o.store.listForUser(userId, t)).filter((r) => t - r.last_seen_at < o.idleMs);
      return live.map((r) => ({
        created_at: new Date(r.created_at).toISOString(),
        last_seen_at: new Date(r.last_seen_at).toISOString(),
        expires_at: new Date(r.expires_at).toISOString(),
        roles: r.roles,
      }));
    },
  };
}

export type SessionManager = ReturnType<typeof sessionManager>;
