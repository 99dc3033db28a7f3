export { StableStore, sortableKey, stableStores } from './stable-store.ts';
export { AzleIdl, azleMethods, context, dispatcher, interCanister, principals, rawRandBytes, type AzleMethods } from './entry.ts';
