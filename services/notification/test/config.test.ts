// Configuration validated at start-up with a clear message (ARCHITECTURE principles; spec 3 variables).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ConfigError } from '@domdao/config';
import { brandsFromConfig } from '../src/brands/brands.ts';
import { loadNotificationConfig } from '../src/config.ts';

const load = (env: Record<string, string>) => brandsFromConfig(loadNotificationConfig(env));

describe('notification configuration', () => {
  it('defaults follow spec 3: PORT 3100, LOG_LEVEL info, NODE_ENV development, stub mode, fail-closed', () => {
    const c = loadNotificationConfig({});
    assert.equal(c.PORT, 3100);
    assert.equal(c.LOG_LEVEL, 'info');
    assert.equal(c.NODE_ENV, 'development');
    assert.equal(c.SERVICE_TOKEN, undefined);
    assert.equal(c.EMAIL_PROVIDER_API_KEY, undefined);
  });
  it('lists every bad variable at once, naming it and the value', () => {
    assert.throws(
      () => loadNotificationConfig({ PORT: 'eighty', LOG_LEVEL: 'loud', MAX_BODY_BYTES: '-1' }),
      (e: unknown) =>
        e instanceof ConfigError &&
        e.problems.length === 3 &&
        /PORT.*"eighty"/.test(e.message) &&
        /LOG_LEVEL/.test(e.message) &&
        /MAX_BODY_BYTES/.test(e.message),
    );
  });
  it('brand colours must be #RRGGBB (they are placed in style attributes)', () => {
    assert.throws(() => load({ BRAND_DAO_PRIMARY_COLOR: 'red;background:url(x)' }), /BRAND_DAO_PRIMARY_COLOR/);
  });
  it('brand URLs must be https outside tests, and absolute', () => {
    assert.throws(() => load({ BRAND_PRODUCT_LOGO_URL: 'http://cdn.example/logo.png' }), /BRAND_PRODUCT_LOGO_URL/);
    assert.throws(() => load({ NODE_ENV: 'test', BRAND_PRODUCT_LOGO_URL: '/logo.png' }), /BRAND_PRODUCT_LOGO_URL/);
    assert.doesNotThrow(() => load({ NODE_ENV: 'test', BRAND_PRODUCT_LOGO_URL: 'http://127.0.0.1:8080/logo.png' }));
  });
  it('production refuses the example brand domains', () => {
    assert.throws(() => load({ NODE_ENV: 'production' }), /still the example default/);
    assert.doesNotThrow(() =>
      load({
        NODE_ENV: 'production',
        BRAND_DAO_DOMAIN: 'dao.test-org.net',
        BRAND_PRODUCT_DOMAIN: 'app.test-org.net',
      }),
    );
  });
  it('the two brand domains must differ and be domain names', () => {
    assert.throws(() => load({ BRAND_PRODUCT_DOMAIN: 'domdao.example' }), /must differ/);
    assert.throws(() => load({ BRAND_DAO_DOMAIN: 'not a domain' }), /BRAND_DAO_DOMAIN/);
  });
});
