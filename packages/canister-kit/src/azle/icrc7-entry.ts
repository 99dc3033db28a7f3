// The ICRC-7 and ICRC-10 entry points, declared once for every soul-bound collection (membership,
// vote passes): a canister's default-export class extends this base. Azle registers decorated
// methods when the exported class is instantiated, base-class methods included (proved by
// npm run build:canisters leaving both .did files unchanged).
import { icrc7Methods } from '../candid/icrc7.ts';
import { AzleIdl, type dispatcher } from './entry.ts';
import { tableEntryPoints } from './table-entry.ts';

// Made when the module loads, before any canister's own table: Candid numbers recursive types (ICRC-3's
// Value) in the order they are made, and the committed .did files name them so.
const table = icrc7Methods(AzleIdl);

/** A base class answering the ICRC-7/ICRC-10 methods through `calls` (the canister's dispatcher). */
export function icrc7EntryPoints(calls: ReturnType<typeof dispatcher>) {
  return tableEntryPoints(table, calls);
}
