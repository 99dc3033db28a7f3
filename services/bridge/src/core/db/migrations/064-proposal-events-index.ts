// The proposal timeline (decision V30) reads one proposal's governance events from the event log: an
// index on the proposal id the follower stores in each event's data, for governance events only.
import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`create index bridge_events_governance_proposal on bridge_events ((data->>'proposal_id'), seq) where source = 'governance'`.execute(
    db,
  );
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`drop index bridge_events_governance_proposal`.execute(db);
}
