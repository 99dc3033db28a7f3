// One canister set per database, one live bridge per embedded set (decisions B100–B103, V40, V41).
export { bindCanisterSet, EMBEDDED_LEASE_KEY, type Binding, type Holder } from './binding.ts';
export { embeddedCanisterSet, icCanisterSet, SET_FILE, type CanisterSet } from './identity.ts';
export { CanisterSetRefused, type RefusalReason } from './refused.ts';
