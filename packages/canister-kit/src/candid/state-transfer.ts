// The state transfer's Candid methods (decisions K23, W22), the same on all six canisters.
import { enumVariant, query, result, update, type Idl, type MethodTable } from './methods.ts';

export const TRANSFER_STATUSES = ['fresh', 'importing', 'sealed', 'live'] as const;

export function stateTransferMethods(I: Idl) {
  const Entry = I.Tuple(I.Text, I.Text);
  const Status = enumVariant(I, TRANSFER_STATUSES);
  const StatusReply = I.Record({
    status: Status,
    version: I.Text,
    stores: I.Vec(I.Record({ name: I.Text, count: I.Nat64 })),
  });
  const ExportArgs = I.Record({ store: I.Text, after: I.Opt(I.Text), limit: I.Opt(I.Nat32) });
  const ExportPage = I.Record({ entries: I.Vec(Entry), next: I.Opt(I.Text) });
  const Manifest = I.Record({
    version: I.Text,
    stores: I.Vec(I.Record({ name: I.Text, count: I.Nat64, crc32: I.Nat32 })),
  });
  const ImportStep = I.Variant({
    Begin: Manifest,
    Chunk: I.Record({ store: I.Text, entries: I.Vec(Entry) }),
    Seal: I.Null,
  });
  const Progress = I.Record({ status: Status, imported: I.Nat64 });
  return {
    state_status: query([], StatusReply),
    state_export: query([ExportArgs], result(I, ExportPage, I.Text)),
    state_import: update([ImportStep], result(I, Progress, I.Text)),
  } satisfies MethodTable;
}
