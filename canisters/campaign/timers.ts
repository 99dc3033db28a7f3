// The campaign canister's timer, declared once for its Azle entry point and the embedded platform:
// the cached DOM price is refreshed from governance every 10 minutes (decision G18).
export const CAMPAIGN_PRICE_REFRESH_SECONDS = 600;
