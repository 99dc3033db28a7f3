// The two brands (spec 3 "Brands"): the `domain` field of a send picks one; callers never embed assets.
import { ConfigError } from '@domdao/config';
import type { NotificationConfig } from '../config.ts';

export type BrandKey = 'dao' | 'product';

export interface Brand {
  key: BrandKey;
  domain: string;
  name: string;
  fromAddress: string;
  supportUrl: string;
  postalAddress: string;
  logoUrl: string;
  primaryColor: string;
  backgroundColor: string;
}

const HEX = /^#[0-9A-Fa-f]{6}$/;
const DOMAIN = /^(?=.{1,253}$)(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z][a-z0-9-]{0,61}[a-z0-9]$/;

export class BrandBook {
  readonly byDomain: ReadonlyMap<string, Brand>;
  constructor(readonly brands: readonly Brand[]) {
    this.byDomain = new Map(brands.map((b) => [b.domain, b]));
  }
  get domains(): string[] {
    return this.brands.map((b) => b.domain);
  }
  /** Exact match only: the brand is never inferred (spec 3, Send request `domain`). */
  lookup(domain: string): Brand | undefined {
    return this.byDomain.get(domain);
  }
}

export function brandsFromConfig(config: NotificationConfig): BrandBook {
  const brand = (key: BrandKey, prefix: 'DAO' | 'PRODUCT'): Brand => {
    const get = (name: string) => String(config[`BRAND_${prefix}_${name}` as keyof NotificationConfig]);
    const domain = get('DOMAIN').toLowerCase();
    return {
      key,
      domain,
      name: get('NAME'),
      fromAddress: `notifications@${domain}`,
      supportUrl: get('SUPPORT_URL'),
      postalAddress: get('POSTAL_ADDRESS'),
      logoUrl: get('LOGO_URL'),
      primaryColor: get('PRIMARY_COLOR'),
      backgroundColor: get('BACKGROUND_COLOR'),
    };
  };
  const book = new BrandBook([brand('dao', 'DAO'), brand('product', 'PRODUCT')]);
  const problems = assertBrands(book, config.NODE_ENV);
  if (problems.length > 0) throw new ConfigError(problems);
  return book;
}

function assertBrands(book: BrandBook, nodeEnv: NotificationConfig['NODE_ENV']): string[] {
  const problems: string[] = [];
  for (const b of book.brands) {
    const p = `BRAND_${b.key.toUpperCase()}_`;
    if (!DOMAIN.test(b.domain)) problems.push(`${p}DOMAIN: not a domain name (got ${JSON.stringify(b.domain)})`);
    for (const [name, value] of [
      ['PRIMARY_COLOR', b.primaryColor],
      ['BACKGROUND_COLOR', b.backgroundColor],
    ] as const) {
      if (!HEX.test(value)) problems.push(`${p}${name}: must be #RRGGBB (got ${JSON.stringify(value)})`);
    }
    for (const [name, value] of [
      ['SUPPORT_URL', b.supportUrl],
      ['LOGO_URL', b.logoUrl],
    ] as const) {
      // Values are placed in href/src attributes, so only absolute http(s) URLs; https outside tests.
      const allowed = nodeEnv === 'test' ? ['https:', 'http:'] : ['https:'];
      if (!URL.canParse(value) || !allowed.includes(new URL(value).protocol) || /[\s"'<>]/.test(value)) {
        problems.push(
          `${p}${name}: must be an absolute ${allowed.join(' or ').replaceAll(':', '')} URL (got ${JSON.stringify(value)})`,
        );
      }
    }
    if (nodeEnv === 'production' && b.domain.endsWith('.example')) {
      problems.push(`${p}DOMAIN: still the example default; set the real brand domain in production`);
    }
  }
  if (book.brands[0]?.domain === book.brands[1]?.domain)
    problems.push('BRAND_DAO_DOMAIN and BRAND_PRODUCT_DOMAIN must differ');
  return problems;
}
