// Azle's runtime offers `process.env` (its build inlines canister environment variables); its sources
// refer to it, so the canister typecheck declares it without pulling in Node's types.
// eslint-disable-next-line no-var -- a global declaration: `var` is how a script file declares one
declare var process: { env: Record<string, string | undefined> } | undefined;
