import { Type } from '@sinclair/typebox';

/** ISO 4217 code (USD) or a crypto symbol (ICP, ckBTC): letters and digits, 2 to 12. */
export const currency = (opts: { default?: string } = {}) =>
  Type.String({
    pattern: '^[A-Za-z0-9]{2,12}$',
    'x-message': 'an ISO 4217 code or a token symbol (2 to 12 letters or digits)',
    ...opts,
  });
