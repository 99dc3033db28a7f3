// The governance canister's front door: its core factory and types, its Candid method table and init types.
// Other packages import only this (docs/architecture.md "Dependency rules").
export * from './core/governance.ts';
export * from './core/types.ts';
export * from './candid.ts';
export * from './wiring.ts';
// The reference model of delegated counting (decisions G29–G31): the property tests' oracle on both hosts.
export { expectedBallots } from './core/delegation-oracle.ts';
