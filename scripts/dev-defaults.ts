// Development defaults of `npm start` (docs/reference/config-start.md); never used by the services alone.
export const DEV_NOTIFICATION_TOKEN = 'dev-notification-token-change-me';
export const DEV_WEBHOOK_SECRET = 'dev-webhook-secret-change-me';
export const DEV_API_TOKEN = 'dev-api-token-change-me';
export const DEV_ADMIN_EMAIL = 'admin@domdao.localhost';
export const DEV_HOST = '127.0.0.1';
/** The password `npm run journey` gives the accounts it registers (the first admin included, when it registers it). */
export const JOURNEY_PASSWORD = 'a long journey passphrase';
/** The DOM/USD price of `npm start`'s development price sources (decision O14). */
export const DEV_DOM_PRICE_USD = 0.25;
/** `npm start`: DOM the development faucet gives per request, and the treasury's initial DOM (decision L22). */
export const DEV_FAUCET_DOM = 1000;
export const DEV_TREASURY_DOM = 1_000_000;
/** Decision G45: under npm start a proposal opens a minute after it is made and its vote runs this long. */
export const DEV_VOTING_MINUTES = 10;
