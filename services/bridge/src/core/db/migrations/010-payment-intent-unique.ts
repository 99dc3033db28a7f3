// Decision B19: the payment intent id is the idempotency key of a payment (one intent, one upgrade).
import type { Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.createIndex('payments_payment_id_unique').unique().on('payments').column('payment_id').execute();
}
