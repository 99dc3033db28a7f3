// A job's lease row (decisions V17, V19): one holder at a time runs a job; a holder that dies lets
// its lease expire, and the next one takes it over.
import type { Db } from '../db/schema.ts';

export class JobLeases {
  constructor(
    private readonly db: Db,
    private readonly now: () => number,
    private readonly leaseMs: number,
    private readonly owner: string,
  ) {}

  async acquire(name: string): Promise<boolean> {
    const now = new Date(this.now());
    await this.db
      .insertInto('jobs')
      .values({ name, lease_owner: null, lease_until: null })
      .onConflict((oc) => oc.column('name').doNothing())
      .execute();
    const row = await this.db
      .updateTable('jobs')
      .set({ lease_owner: this.owner, lease_until: new Date(now.getTime() + this.leaseMs) })
      .where('name', '=', name)
      .where((eb) => eb.or([eb('lease_until', 'is', null), eb('lease_until', '<', now)]))
      .returning('name')
      .executeTakeFirst();
    return row !== undefined;
  }

  async renew(name: string): Promise<boolean> {
    const row = await this.db
      .updateTable('jobs')
      .set({ lease_until: new Date(this.now() + this.leaseMs) })
      .where('name', '=', name)
      .where('lease_owner', '=', this.owner)
      .returning('name')
      .executeTakeFirst();
    return row !== undefined;
  }

  async release(name: string): Promise<void> {
    await this.db
      .updateTable('jobs')
      .set({ lease_owner: null, lease_until: null })
      .where('name', '=', name)
      .where('lease_owner', '=', this.owner)
      .execute();
  }
}
