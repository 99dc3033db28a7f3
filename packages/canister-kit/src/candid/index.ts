export {
  enumVariant,
  query,
  result,
  service,
  update,
  type Idl,
  type IdlType,
  type MethodSpec,
  type MethodTable,
} from './methods.ts';
export { icrc7Methods, icrc7Types } from './icrc7.ts';
export { icrc21Methods, icrc21Types } from './icrc21.ts';
export { fromCandid, toCandid, type PrincipalCodec } from './values.ts';
export { stateTransferMethods, TRANSFER_STATUSES } from './state-transfer.ts';
