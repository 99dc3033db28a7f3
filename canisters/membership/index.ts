// The membership canister's front door: its core factory and types, its Candid method table and init types.
// Other packages import only this (docs/architecture.md "Dependency rules").
export * from './core/membership.ts';
export * from './candid.ts';
export * from './wiring.ts';
