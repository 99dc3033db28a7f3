// A bridge that would split a canister set's state refuses to start (decisions B100–B102): one
// sentence saying what is wrong and what to do; `npm run bridge` and `npm start` print it and exit 1.
export type RefusalReason = 'another_set' | 'in_use' | 'unreadable' | 'lease_lost' | 'other_secrets';

export class CanisterSetRefused extends Error {
  override name = 'CanisterSetRefused';
  constructor(
    readonly reason: RefusalReason,
    message: string,
  ) {
    super(message);
  }
}
