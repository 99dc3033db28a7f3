// GET / (issue 8 item 18, decision B46): where sign-in and the verified page's "Continue" land while
// no member web app exists: an HTML page with the signed-in state and links, not a JSON 404.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { bridge, type Bridge } from './harness.ts';

const PUBLIC = 'https://bridge.domdao.example';
const CSP = "default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; connect-src 'self'; form-action 'self'; frame-ancestors 'none'";

describe('the bridge home page (decision B46)', () => {
  let h: Bridge;
  before(async () => {
    // As on `npm start`: the bridge is its own (first) front end.
    h = await bridge(undefined, { FRONTEND_ORIGINS: PUBLIC });
  });
  after(() => h.close());

  it('decision B46: signed out, `/` is an HTML page with a sign-in link and the login page\'s CSP', async () => {
    const r = await h.request({ method: 'GET', url: '/' });
    assert.equal(r.statusCode, 200);
    assert.match(String(r.headers['content-type']), /^text\/html; charset=utf-8/);
    assert.equal(r.headers['content-security-policy'], CSP);
    assert.equal(r.headers['content-security-policy'], (await h.request({ method: 'GET', url: '/login' })).headers['content-security-policy']);
    assert.equal(r.headers['cache-control'], 'no-store');
    assert.equal(r.headers['x-frame-options'], 'DENY');
    assert.match(r.body, /You are not signed in\./);
    assert.match(r.body, /<a href="\/login">Sign in<\/a>/);
    assert.match(r.body, /<a href="\/auth\/session">Session \(JSON\)<\/a>/);
    assert.doesNotMatch(r.body, /Sign out/);
  });

  it('decision B46: "Continue" on the verified page and the login page\'s default target land on `/`, which shows who is signed in', async () => {
    assert.equal((await h.register('ada@example.org')).statusCode, 201);
    const verified = await h.request({ method: 'GET', url: h.verificationPath('ada@example.org') });
    const target = /<a href="([^"]+)">Continue<\/a>/.exec(verified.body)?.[1];
    assert.equal(target, PUBLIC);
    assert.match((await h.request({ method: 'GET', url: '/login' })).body, new RegExp(`data-return="${PUBLIC}/?"`));

    const jar = {};
    const res = await h.request({ method: 'POST', url: '/auth/login', origin: PUBLIC, jar, payload: { email: 'ada@example.org', password: 'correct horse battery staple' } });
    assert.equal(res.statusCode, 200, res.body);
    const home = await h.request({ method: 'GET', url: new URL(target!).pathname, jar });
    assert.equal(home.statusCode, 200);
    assert.match(home.body, /Signed in as <strong>ada@example\.org<\/strong> \(member\)\./);
    assert.match(home.body, /<button id="signout" type="button">Sign out<\/button>/);
    assert.match(home.body, /fetch\('\/auth\/logout', \{ method: 'POST'/);
    assert.match(home.body, /<a href="\/api\/auth\/session">/);

    // The sign-out the page performs (same-origin POST) ends the session; `/` says so.
    const out = await h.request({ method: 'POST', url: '/auth/logout', jar, origin: PUBLIC });
    assert.equal(out.statusCode, 200);
    assert.match((await h.request({ method: 'GET', url: '/', jar })).body, /You are not signed in\./);
  });

  it('decision B46: `/` answers only GET/HEAD; other unknown paths stay JSON 404', async () => {
    assert.equal((await h.request({ method: 'HEAD', url: '/' })).statusCode, 200);
    const post = await h.request({ method: 'POST', url: '/', payload: {} });
    assert.equal(post.statusCode, 404);
    const other = await h.request({ method: 'GET', url: '/nope' });
    assert.equal(other.statusCode, 404);
    assert.equal(other.json().error, 'NOT_FOUND');
  });
});
