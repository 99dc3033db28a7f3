// Decisions F43–F46: every payload in words, from the canister's form (bigint) and the bridge's JSON
// (decimal strings) alike, with names, prices and the rules in force as the reader brings them.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  absoluteTime,
  describePayload,
  duration,
  payloadPrincipals,
  relativeTime,
  type RulesNow,
} from '../src/index.ts';

const ADA = 'bl7j7-aaaaa-aaaaa-aaaaa-cai';
const BOB = 'rrkah-fqaaa-aaaaa-aaaaq-cai';
const names = { [ADA]: 'Ada Lovelace', [BOB]: 'Bob Builder' };
const DAY = 86_400_000_000_000n;
const rules_now: RulesNow = {
  rules: [
    { category: 'TreasuryPayout', quorum_bps: 2000, threshold_bps: 6000, voting_window: String(5n * DAY) },
    { category: 'EmergencyAction', quorum_bps: 500, threshold_bps: 8000, voting_window: String(DAY) },
  ],
  voting_delay: String(DAY / 24n),
  execution_window: String(7n * DAY),
};
const text = (t: { summary: string; lines: { label: string; text: string }[] }) =>
  [t.summary, ...t.lines.map((l) => `${l.label}: ${l.text}`)].join('\n');

describe('proposal-text: every payload, readable (decisions F43–F46)', () => {
  it('decision F43: a duration in its two largest units (a consent message, decision L36, gives them all)', () => {
    assert.equal(duration(0n), '0 seconds');
    assert.equal(duration('3600000000000'), '1 hour');
    assert.equal(duration(90_061n * 1_000_000_000n), '1 day 1 hour');
    assert.equal(duration(7 * 86_400 * 1e9 + 90e9), '7 days 1 minute');
  });
  it('decisions F49, N29: a moment relative to now in one unit, and absolute with its zone named', () => {
    const now = Date.UTC(2026, 10, 29, 14, 2);
    assert.equal(relativeTime(now + 59_000, now), 'in 59 seconds');
    assert.equal(relativeTime(now + 60 * 60_000, now), 'in 1 hour');
    assert.equal(relativeTime(now - 3 * 3_600_000, now), '3 hours ago');
    assert.equal(relativeTime(now + 86_400_000, now), 'tomorrow');
    assert.equal(relativeTime(now - 45 * 86_400_000, now), 'last month');
    assert.equal(relativeTime(now + 400 * 86_400_000, now), 'next year');
    assert.equal(absoluteTime(now, 'UTC'), 'Sun, 29 Nov 2026, 14:02 UTC');
    assert.equal(absoluteTime(now, 'Asia/Tokyo'), 'Sun, 29 Nov 2026, 23:02 GMT+9');
  });
  it('decision F43: a USD payout names the recipient and gives DOM at the ratified price; a DOM payout gives USD; the paid amount once executed', () => {
    const usd = describePayload(
      'TreasuryPayout',
      { TreasuryPayout: { recipient: ADA, amount: { Usd: 50 } } },
      { names, ratified_price_usd: 0.25 },
    );
    assert.equal(usd.summary, 'Pays Ada Lovelace 50.00 USD (about 200 DOM) from the treasury');
    assert.match(text(usd), /In DOM: about 200 DOM at the ratified price of 0\.25 USD/);
    const dom = describePayload(
      'TreasuryPayout',
      { TreasuryPayout: { recipient: ADA, amount: { DomE8s: 12_550_000_000n }, memo: 'garden' } },
      { names, ratified_price_usd: 0.2 },
    );
    assert.equal(dom.summary, 'Pays Ada Lovelace 125.5 DOM (about 25.10 USD) from the treasury');
    assert.match(text(dom), /Memo: garden/);
    const paid = describePayload(
      'TreasuryPayout',
      { TreasuryPayout: { recipient: ADA, amount: { Usd: 50 } } },
      { names, status: 'Executed', paid_e8s: '20000000000' },
    );
    assert.equal(paid.summary, 'Paid Ada Lovelace 200 DOM from the treasury');
    const noPrice = describePayload(
      'TreasuryPayout',
      { TreasuryPayout: { recipient: ADA, amount: { Usd: 50 } } },
      { ratified_price_usd: null },
    );
    assert.equal(
      noPrice.summary,
      'Pays account bl7j7-aaaaa… 50.00 USD (in DOM at the ratified price) from the treasury',
      'decision F45: no member name',
    );
    assert.match(text(noPrice), /no DOM price is ratified yet/);
  });

  it('decision F43: a price proposal against the oracle and the ratified price, with its times and source', () => {
    const t = describePayload(
      'SetDomPrice',
      { SetDomPrice: { price_usd: 0.25, effective_at: '1795910400000000000', source_url: 'https://example.org/p' } },
      { ratified_price_usd: 0.2, oracle_price_usd: 0.26 },
    );
    assert.equal(t.summary, 'Sets the DOM price to 0.25 USD (ratified now: 0.20 USD)');
    assert.match(text(t), /Oracle price now: 0\.26 USD per DOM \(this proposal: -3\.8 %\)/);
    assert.match(text(t), /Ratified price now: 0\.20 USD per DOM \(this proposal: \+25 %\)/);
    assert.match(text(t), /In force from: 29 November 2026, 00:00 UTC/);
    assert.match(text(t), /Source: https:\/\/example\.org\/p/);
    assert.match(
      text(describePayload('SetDomPrice', { SetDomPrice: { price_usd: 0.25 } }, {})),
      /Ratified price now: none yet: this would be the first/,
    );
    const done = text(
      describePayload(
        'SetDomPrice',
        { SetDomPrice: { price_usd: 0.25 } },
        { status: 'Executed', ratified_price_usd: 0.25 },
      ),
    );
    assert.match(done, /^Set the DOM price to 0\.25 USD\n/);
    assert.match(done, /Ratified price now: 0\.25 USD per DOM: this proposal's/);
    assert.match(done, /In force from: when it executed/);
  });

  it('decision F58: membership changes by name, only what the payload says (no assumed role before); the summary lists them', () => {
    const t = describePayload(
      'MembershipPolicy',
      { MembershipPolicy: { add_admins: [ADA], remove_admins: [BOB], revoke: [] } },
      { names },
    );
    assert.equal(t.summary, 'Makes Ada Lovelace admin; removes Bob Builder as admin');
    assert.match(text(t), /Admins added: Ada Lovelace: to be made admin/);
    assert.match(text(t), /Admins removed: Bob Builder: to be removed as admin/);
    assert.doesNotMatch(text(t), /→/);
    const done = text(
      describePayload(
        'MembershipPolicy',
        { MembershipPolicy: { add_admins: [], remove_admins: [BOB], revoke: [ADA] } },
        { names, status: 'Executed' },
      ),
    );
    assert.match(done, /Admins removed: Bob Builder: removed as admin/);
    assert.match(done, /Memberships revoked: Ada Lovelace: membership revoked/);
    assert.doesNotMatch(done, /admin → member|→/);
    assert.deepEqual(
      payloadPrincipals({ MembershipPolicy: { add_admins: [ADA], remove_admins: [BOB], revoke: [ADA] } }),
      [ADA, BOB, ADA],
    );
  });

  it('decision F44: an amendment as before → after of each rule while it waits; once executed it says what it set', () => {
    const payload = {
      ConstitutionalAmendment: {
        category_rules: [{ category: 'TreasuryPayout', quorum_bps: 2500, voting_window: String(3n * DAY) }],
        voting_delay: String(DAY / 12n),
      },
    };
    const t = describePayload('ConstitutionalAmendment', payload, { rules_now });
    assert.match(text(t), /Treasury payout: quorum: 20 % → 25 %/);
    assert.match(text(t), /Treasury payout: voting period: 5 days → 3 days/);
    assert.match(text(t), /Review time before voting: 1 hour → 2 hours/);
    assert.match(
      t.summary,
      /^Changes the rules: Treasury payout quorum 20 % → 25 %, Treasury payout voting period 5 days → 3 days and 1 more$/,
    );
    assert.match(
      text(describePayload('ConstitutionalAmendment', payload, { rules_now, status: 'Executed' })),
      /quorum: set to 25 %/,
    );
  });

  it('decision G52: an executed amendment reads before → after from the rules the canister recorded, not the rules now', () => {
    const payload = {
      ConstitutionalAmendment: {
        category_rules: [{ category: 'TreasuryPayout', quorum_bps: 2500 }],
        voting_delay: String(DAY / 12n),
      },
    };
    // The rules now already hold the change (and a later one): the "before" must not come from them.
    const later: RulesNow = {
      ...rules_now,
      rules: rules_now.rules.map((r) => (r.category === 'TreasuryPayout' ? { ...r, quorum_bps: 3000 } : r)),
    };
    const t = describePayload('ConstitutionalAmendment', payload, {
      rules_now: later,
      rules_before: rules_now,
      status: 'Executed',
    });
    assert.match(text(t), /Treasury payout: quorum: 20 % → 25 %/);
    assert.match(text(t), /Review time before voting: 1 hour → 2 hours/);
    assert.equal(
      t.summary,
      'Changed the rules: Treasury payout quorum 20 % → 25 % and Review time before voting 1 hour → 2 hours',
    );
    const emergency = describePayload('EmergencyAction', payload, {
      rules_now: later,
      rules_before: rules_now,
      status: 'Executed',
    });
    assert.match(emergency.summary, /^Emergency: changed the rules: Treasury payout quorum 20 % → 25 %/);
  });

  it('decision F46: an emergency action in plain words, with or without a payload; General says nothing runs by itself', () => {
    const bare = describePayload('EmergencyAction', null, { rules_now });
    assert.equal(bare.summary, 'An emergency decision on the fast track; nothing is executed automatically');
    assert.match(text(bare), /Emergency: Voting opens at once and runs 1 day; it needs 80 % Yes of a 5 % quorum/);
    const pay = describePayload(
      'EmergencyAction',
      { TreasuryPayout: { recipient: BOB, amount: { Usd: 10 } } },
      { names, ratified_price_usd: 0.5 },
    );
    assert.equal(pay.summary, 'Emergency: pays Bob Builder 10.00 USD (about 20 DOM) from the treasury');
    assert.equal(
      describePayload('General', null).summary,
      'A decision of the members; nothing is executed automatically',
    );
  });
});
