// The campaign canister's front door: its core factory and types, its Candid method table and init types.
// Other packages import only this (docs/architecture.md "Dependency rules").
export * from './core/campaign.ts';
export * from './core/progress.ts';
export * from './candid.ts';
export * from './wiring.ts';
