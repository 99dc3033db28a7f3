// Spec 3 `event-reminder`: the service builds event.ics (RFC 5545), placed before caller attachments.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import ICAL from 'ical.js';
import { makeServiceWithProvider, validBody, withoutField } from './harness.ts';

let p: Awaited<ReturnType<typeof makeServiceWithProvider>>;
before(async () => (p = await makeServiceWithProvider()));
after(() => p.close());

async function ics(data: Record<string, unknown> = {}, attachments?: unknown[]) {
  const body = { ...validBody('event-reminder', { data }), ...(attachments && { attachments }) };
  const res = await p.send(body);
  assert.equal(res.statusCode, 200, res.body);
  const m = p.sent();
  return { m, text: Buffer.from(m.attachments![0]!.content, 'base64').toString('utf8') };
}

const unfold = (s: string) => s.replace(/\r\n[ \t]/g, '');

describe('event.ics', () => {
  it('is the first attachment, named event.ics, with Content-Type text/calendar; charset=utf-8', async () => {
    const caller = { filename: 'agenda.pdf', content: Buffer.from('%PDF').toString('base64') };
    const { m } = await ics({}, [caller]);
    assert.equal(m.attachments!.length, 2);
    assert.equal(m.attachments![0]!.filename, 'event.ics');
    assert.equal(m.attachments![0]!.content_type, 'text/calendar; charset=utf-8');
    assert.equal(m.attachments![1]!.filename, 'agenda.pdf');
  });

  it('callers do not supply it: a caller file named event.ics comes after the generated one', async () => {
    const { m } = await ics({}, [
      { filename: 'event.ics', content: Buffer.from('BEGIN:VCALENDAR').toString('base64') },
    ]);
    assert.match(Buffer.from(m.attachments![0]!.content, 'base64').toString(), /BEGIN:VEVENT/);
  });

  it('uses CRLF line endings, ends with CRLF, and folds lines at 75 octets', async () => {
    const { text } = await ics({
      event_title: `Ünïcödé 日本語のイベント ${'long title words '.repeat(8)}`.slice(0, 200),
      event_description: '🎉'.repeat(100),
    });
    assert.ok(text.endsWith('\r\n'));
    assert.ok(!/[^\r]\n/.test(text), 'no bare LF');
    for (const line of text.split('\r\n'))
      assert.ok(Buffer.byteLength(line) <= 75, `line of ${Buffer.byteLength(line)} octets: ${line}`);
  });

  it('has VCALENDAR with PRODID, VERSION and METHOD:PUBLISH, and one VEVENT with every field', async () => {
    const { text } = await ics();
    const u = unfold(text);
    assert.match(u, /^BEGIN:VCALENDAR\r\n/);
    assert.match(u, /\r\nVERSION:2\.0\r\n/);
    assert.match(u, /\r\nPRODID:-\/\/DOM DAO\/\/notification-service\/\/EN\r\n/);
    assert.match(u, /\r\nMETHOD:PUBLISH\r\n/);
    assert.match(u, /\r\nUID:townhall-2026-11@domdao\.example\r\n/);
    assert.match(u, /\r\nDTSTAMP:\d{8}T\d{6}Z\r\n/);
    assert.match(u, /\r\nDTSTART:20261123T170000Z\r\n/);
    assert.match(u, /\r\nDTEND:20261123T180000Z\r\n/);
    assert.match(u, /\r\nSUMMARY:November town hall\r\n/);
    assert.match(
      u,
      /\r\nDESCRIPTION:Quarterly treasury report\\, then open questions\.\\nBring your proposals\.\\n\\nhttps:\/\/app\.domdao\.example\/events\/townhall-2026-11\r\n/,
    );
    assert.match(u, /\r\nLOCATION:Online\r\n/);
    assert.match(u, /\r\nORGANIZER;CN="DOM DAO Council":mailto:council@domdao\.example\r\n/);
  });

  it('emits UTC times only: offsets are converted, no TZID and no VTIMEZONE', async () => {
    const { text } = await ics({ start_time: '2026-11-23T18:00:00+01:00', end_time: '2026-11-23T13:30:00-05:00' });
    const u = unfold(text);
    assert.match(u, /DTSTART:20261123T170000Z/);
    assert.match(u, /DTEND:20261123T183000Z/);
    assert.ok(!/TZID|VTIMEZONE/.test(u));
  });

  it('escapes commas, semicolons, backslashes and newlines in text values (RFC 5545 §3.3.11)', async () => {
    const { text } = await ics({ event_title: 'A, B; C \\ D', event_location: 'Room 1; Floor 2, East' });
    const u = unfold(text);
    assert.match(u, /SUMMARY:A\\, B\\; C \\\\ D\r\n/);
    assert.match(u, /LOCATION:Room 1\\; Floor 2\\, East\r\n/);
  });

  it('without organizer_email the ORGANIZER is the brand’s sending address (decision D7)', async () => {
    const data = withoutField(withoutField(validBody('event-reminder').data, 'organizer_email'), 'organizer_name');
    const res = await p.send({ ...validBody('event-reminder'), data });
    assert.equal(res.statusCode, 200);
    const u = unfold(Buffer.from(p.sent().attachments![0]!.content, 'base64').toString());
    assert.match(u, /ORGANIZER;CN="DOM DAO":mailto:notifications@domdao\.example/);
  });

  it('parses with an independent RFC 5545 parser (ical.js) into the expected event', async () => {
    const { text } = await ics({ event_title: 'Vote; count, close', start_time: '2026-11-23T17:00:00Z' });
    const component = new ICAL.Component(ICAL.parse(text));
    const vevent = component.getFirstSubcomponent('vevent')!;
    const event = new ICAL.Event(vevent);
    assert.equal(event.uid, 'townhall-2026-11@domdao.example');
    assert.equal(event.summary, 'Vote; count, close');
    assert.equal(event.startDate.toJSDate().toISOString(), '2026-11-23T17:00:00.000Z');
    assert.equal(event.endDate.toJSDate().toISOString(), '2026-11-23T18:00:00.000Z');
    assert.equal(event.location, 'Online');
    assert.equal(vevent.getFirstPropertyValue('organizer'), 'mailto:council@domdao.example');
    assert.equal(component.getFirstPropertyValue('method'), 'PUBLISH');
  });

  it('DTSTAMP is the send time, from the service clock', async (t) => {
    const fixed = await makeServiceWithProvider({}, undefined, { now: () => new Date('2026-11-22T08:15:30.250Z') });
    t.after(() => fixed.close());
    await fixed.send(validBody('event-reminder'));
    const u = unfold(Buffer.from(fixed.sent().attachments![0]!.content, 'base64').toString());
    assert.match(u, /\r\nDTSTAMP:20261122T081530Z\r\n/);
  });
});
