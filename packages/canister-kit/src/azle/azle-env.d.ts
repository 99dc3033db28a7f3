// Azle's runtime offers `process.env` (its build inlines canister environment variables); its sources
// refer to it, so the canister typecheck declares it without pulling in Node's types.
declare var process: { env: Record<string, string | undefined> } | undefined;
