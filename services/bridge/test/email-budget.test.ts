// Decisions B84 and B85 through HTTP (issue 45 item 3): the email budget for an address is the
// requesting client's. A stranger who spends theirs on someone else's address (registrations, new
// links, resets) is refused at EMAIL_LIMIT_PER_RECIPIENT + 1; the owner asking from their own client
// still gets every link of their own budget, and is limited at the same count. An IPv6 client is its /64.
// Every refusal is a 429 with Retry-After, a log line and an audit row.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { LightMyRequestResponse } from 'fastify';
import { bridge, eventually, type Bridge } from './harness.ts';

const PASSWORD = 'correct horse battery staple';
const STRANGER = '203.0.113.66';
const OWNER = '198.51.100.20';

function client(h: Bridge, remoteAddress: string) {
  return {
    async register(email: string) {
      const fields = await h.encrypt({ email, name: 'Ada Lovelace', dob: '1990-05-01' });
      return h.request({
        method: 'POST',
        url: '/api/auth/register',
        payload: { ...fields, password: PASSWORD, tos_accepted: true },
        remoteAddress,
      });
    },
    resend: (email: string) =>
      h.request({ method: 'POST', url: '/api/auth/resend-verification', payload: { email }, remoteAddress }),
    reset: (email: string) =>
      h.request({ method: 'POST', url: '/api/auth/password-reset/request', payload: { email }, remoteAddress }),
  };
}

function assertTooMany(r: LightMyRequestResponse, what: string) {
  assert.equal(r.statusCode, 429, `${what}: ${r.body}`);
  assert.equal(r.json().error, 'TOO_MANY_ATTEMPTS');
  const wait = Number(r.headers['retry-after']);
  assert.ok(wait > 0 && wait <= 3600, `${what}: Retry-After ${String(r.headers['retry-after'])}`);
}

const mailsTo = (h: Bridge, to: string) => h.emails().filter((m) => m.to.includes(to));

async function auditRows(h: Bridge, event: string): Promise<Array<Record<string, unknown>>> {
  const rows = await h.opened.db
    .selectFrom('audit_log')
    .select(['detail', 'outcome'])
    .where('event', '=', event)
    .orderBy('id')
    .execute();
  return rows.map((r) => ({
    outcome: r.outcome,
    ...(typeof r.detail === 'string' ? (JSON.parse(r.detail) as object) : r.detail),
  }));
}

describe("the email budget for an address is the requesting client's (decision B84)", () => {
  it('decision B84: a stranger who spends their budget on an unverified address (3 registrations, then 429) never blocks its owner: from their own client the owner registers, gets a new link and a reset, each mailed, and is limited at their own 3', async (t) => {
    const h = await bridge();
    t.after(() => h.close());
    const victim = 'owner@example.org';
    const stranger = client(h, STRANGER);
    const owner = client(h, OWNER);
    // The stranger's budget for the address: exactly EMAIL_LIMIT_PER_RECIPIENT emails, then 429 on every way of asking.
    assert.equal(h.config.EMAIL_LIMIT_PER_RECIPIENT, 3);
    for (let i = 1; i <= 3; i++)
      assert.equal((await stranger.register(victim)).statusCode, 201, `the stranger's registration ${i}`);
    assertTooMany(await stranger.register(victim), "the stranger's 4th registration");
    assertTooMany(await stranger.resend(victim), "the stranger's resend");
    assertTooMany(await stranger.reset(victim), "the stranger's reset");
    assert.equal(mailsTo(h, victim).length, 3);

    // The owner, from another client: one registration, one new link, one reset, every one mailed.
    const registered = await owner.register(victim);
    assert.equal(registered.statusCode, 201, registered.body);
    assert.equal(registered.json().verification_email_sent, true, "the owner's own link");
    assert.equal((await owner.resend(victim)).statusCode, 202);
    await eventually('the new link', () => mailsTo(h, victim).length === 5 || undefined);
    assert.equal((await owner.reset(victim)).statusCode, 202);
    await eventually('the reset email', () => mailsTo(h, victim).some((m) => /reset/i.test(m.subject)) || undefined);
    assert.equal(mailsTo(h, victim).length, 6);
    // At the owner's own limit and one past it.
    assertTooMany(await owner.resend(victim), "the owner's 4th email");
    assert.equal((await h.verify(victim)).statusCode, 200, "the owner's latest link verifies");

    // Every refusal: a log line and an audit row naming the spent limit (decision B85).
    assert.deepEqual(await auditRows(h, 'registration.refused'), [
      { outcome: 'denied', error: 'TOO_MANY_ATTEMPTS', limit: 'recipient' },
    ]);
    assert.deepEqual(await auditRows(h, 'recovery.limited'), [
      { outcome: 'denied', kind: 'resend', limit: 'recipient' },
      { outcome: 'denied', kind: 'reset', limit: 'recipient' },
      { outcome: 'denied', kind: 'resend', limit: 'recipient' },
    ]);
    assert.equal(h.logs.events('registration.refused').length + h.logs.events('recovery.limited').length, 4);
    // The budget is the hour's: the stranger's comes back after it.
    h.advance(3_600_000);
    assert.equal((await stranger.resend(victim)).statusCode, 202, 'the next hour');
  });

  it("decision B84: a stranger's password-reset requests for a member's address (3, then 429) leave the member's own reset untouched", async (t) => {
    const h = await bridge();
    t.after(() => h.close());
    const member = 'member@example.org';
    await h.member(member);
    const stranger = client(h, STRANGER);
    for (let i = 1; i <= 3; i++)
      assert.equal((await stranger.reset(member)).statusCode, 202, `the stranger's reset ${i}`);
    assertTooMany(await stranger.reset(member), "the stranger's 4th reset");
    await eventually(
      "the stranger's three reset emails",
      () => mailsTo(h, member).filter((m) => /reset/i.test(m.subject)).length === 3 || undefined,
    );
    const own = await client(h, OWNER).reset(member);
    assert.equal(own.statusCode, 202, own.body);
    await eventually(
      "the member's own reset email",
      () => mailsTo(h, member).filter((m) => /reset/i.test(m.subject)).length === 4 || undefined,
    );
  });

  it('decision B84: an IPv6 client is its /64: addresses inside one share a budget (3, then 429), the next /64 has its own; an IPv4 address seen through IPv6 is that address', async (t) => {
    const h = await bridge();
    t.after(() => h.close());
    const address = 'someone@example.org';
    for (const ip of ['2001:db8:1:2::a', '2001:db8:1:2:ffff:ffff:ffff:ffff', '2001:0db8:0001:0002::c'])
      assert.equal((await client(h, ip).resend(address)).statusCode, 202, ip);
    assertTooMany(await client(h, '2001:db8:1:2::d').resend(address), 'a fourth address of the same /64');
    assert.equal((await client(h, '2001:db8:1:3::a').resend(address)).statusCode, 202, 'the next /64');
    for (let i = 0; i < 3; i++) assert.equal((await client(h, '203.0.113.9').resend(address)).statusCode, 202);
    assertTooMany(await client(h, '::ffff:203.0.113.9').resend(address), 'the same IPv4 client through an IPv6 socket');
  });
});
