// The event-reminder calendar file (spec 3 `event-reminder`): RFC 5545, UTC times only (no TZID, so
// no VTIMEZONE that Outlook would mishandle), METHOD:PUBLISH so clients add it rather than treat it as
// a meeting invitation they must answer. The text is written by buildIcs exactly as ical-generator
// writes it (decision D38; ical-generator stays the reference the tests compare with) and folded by
// fold.ts (D35).
import { randomUUID } from 'node:crypto';
import ical, { ICalCalendarMethod } from 'ical-generator';
import type { Brand } from '../brands/brands.ts';
import type { Attachment } from '../envelope/attachments.ts';
import { foldLines } from './fold.ts';

export interface CalendarEvent {
  uid: string;
  title: string;
  start: string;
  end: string;
  description: string;
  location?: string;
  url?: string;
  organizer: { name: string; email: string };
  stamp: Date;
}

export const ICS_CONTENT_TYPE = 'text/calendar; charset=utf-8';

/** ical-generator's own output (its folding is slow): the reference that buildIcs must equal byte for byte. */
export function buildIcsReference(event: CalendarEvent, brand: Brand): string {
  return `${calendarOf(event, brand).toString()}\r\n`;
}

const SPECIAL = /[\\;,\r\n]/;
const SPECIAL_QUOTED = /[\\"\r\n]/;

/** ical-generator's `escape`: backslash-escapes `\\ ; ,` (or `\\ "` inside quotes); line breaks become `\\n`. */
function escapeText(value: string, inQuotes: boolean): string {
  // Most values have nothing to escape: one test instead of two replace passes.
  if (!(inQuotes ? SPECIAL_QUOTED : SPECIAL).test(value)) return value;
  return value.replace(inQuotes ? /[\\"]/g : /[\\;,]/g, (m) => `\\${m}`).replace(/(?:\r\n|\r|\n)/g, '\\n');
}

const two = (n: number) => (n < 10 ? `0${n}` : String(n));

/** ical-generator's `formatDate` for a UTC date-time: `YYYYMMDDTHHMMSSZ`. */
function utcStamp(d: Date): string {
  return `${String(d.getUTCFullYear()).padStart(4, '0')}${two(d.getUTCMonth() + 1)}${two(d.getUTCDate())}T${two(d.getUTCHours())}${two(d.getUTCMinutes())}${two(d.getUTCSeconds())}Z`;
}

// `YYYY-MM-DDTHH:MM:SS[.fraction]Z` from year 1000: already UTC, so its stamp is its own digits (D41).
const CANONICAL_UTC = /^([1-9]\d{3})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(?:\.\d{1,9})?Z$/;
const DAYS_IN_MONTH = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

/**
 * utcStamp(new Date(iso)) read from the text of a canonical UTC date-time that is a real instant
 * (a real date, hours < 24, minutes and seconds < 60), else undefined; a property test holds the two
 * equal.
 */
function stampOf(iso: string): string | undefined {
  const m = CANONICAL_UTC.exec(iso);
  if (!m) return undefined;
  const [, y, mo, d, h, mi, sec] = m as unknown as [string, string, string, string, string, string, string];
  const year = Number(y);
  const month = Number(mo);
  const day = Number(d);
  const leap = month === 2 && year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0);
  if (
    month < 1 ||
    month > 12 ||
    day < 1 ||
    day > DAYS_IN_MONTH[month - 1]! + (leap ? 1 : 0) ||
    Number(h) > 23 ||
    Number(mi) > 59 ||
    Number(sec) > 59
  )
    return undefined;
  return `${y}${mo}${d}T${h}${mi}${sec}Z`;
}

function validDate(d: Date, attribute: string): Date {
  if (isNaN(d.getTime())) throw new Error(`\`${attribute}\` has to be a valid date!`);
  return d;
}

/**
 * The calendar ical-generator writes for calendarOf's properties, serialised directly (decision D38):
 * the same lines in the same order with its escaping, date format, start/end swap and refusals, then
 * our folding. Building the ical-generator objects cost 9 of the 12 µs a calendar took. A property
 * test holds it byte for byte to buildIcsReference (ical-generator itself) over arbitrary events, and
 * the calendar tests parse it with ical.js.
 */
export function buildIcs(event: CalendarEvent, brand: Brand): string {
  if (!brand.name) throw new Error('`prodid.company` is a mandatory item!');
  // Canonical UTC times are stamped from their text (D41); anything else, and equal seconds (the
  // swap compares milliseconds), goes through Date as before.
  let startStamp = stampOf(event.start);
  let endStamp = stampOf(event.end);
  if (startStamp === undefined || endStamp === undefined || startStamp === endStamp) {
    let start = validDate(new Date(event.start), 'start');
    let end = validDate(new Date(event.end), 'end');
    if (start.getTime() > end.getTime()) [start, end] = [end, start];
    startStamp = utcStamp(start);
    endStamp = utcStamp(end);
  } else if (startStamp > endStamp) {
    [startStamp, endStamp] = [endStamp, startStamp];
  }
  const stamp = validDate(event.stamp, 'stamp');
  if (!event.organizer.name) throw new Error('`organizer.name` is empty!');
  if (!event.organizer.email) throw new Error('`organizer.email` is empty!');
  const uid = event.uid ? event.uid : randomUUID(); // ical-generator's default id
  // Each content line is folded as it is written (D35, D41): the same as folding the whole text,
  // whose lines are the pieces between these CRLFs.
  let text =
    `BEGIN:VCALENDAR\r\nVERSION:2.0\r\n${foldLines(`PRODID:-//${brand.name}//notification-service//EN`)}\r\nMETHOD:PUBLISH\r\n` +
    `BEGIN:VEVENT\r\n${foldLines(`UID:${uid}`)}\r\nSEQUENCE:0\r\nDTSTAMP:${utcStamp(stamp)}\r\nDTSTART:${startStamp}\r\nDTEND:${endStamp}\r\n` +
    `${foldLines(`SUMMARY:${escapeText(event.title, false)}`)}\r\n`;
  if (event.location) text += `${foldLines(`LOCATION:${escapeText(event.location, false)}`)}\r\n`;
  text += `${foldLines(`DESCRIPTION:${escapeText(event.description, false)}`)}\r\n`;
  text += `${foldLines(`ORGANIZER;CN="${escapeText(event.organizer.name, true)}":mailto:${escapeText(event.organizer.email, false)}`)}\r\n`;
  if (event.url) text += `${foldLines(`URL;VALUE=URI:${escapeText(event.url, false)}`)}\r\n`;
  // RFC 5545 §3.1: every content line ends with CRLF, the last one included.
  return `${text}END:VEVENT\r\nEND:VCALENDAR\r\n`;
}

function calendarOf(event: CalendarEvent, brand: Brand) {
  const calendar = ical({
    prodId: { company: brand.name, product: 'notification-service', language: 'EN' },
    method: ICalCalendarMethod.PUBLISH,
  });
  calendar.createEvent({
    id: event.uid,
    start: new Date(event.start),
    end: new Date(event.end),
    stamp: event.stamp,
    summary: event.title,
    description: event.description,
    location: event.location ?? null,
    url: event.url ?? null,
    organizer: event.organizer,
  });
  return calendar;
}

export function icsAttachment(event: CalendarEvent, brand: Brand): Attachment {
  return {
    filename: 'event.ics',
    content: Buffer.from(buildIcs(event, brand), 'utf8').toString('base64'),
    contentType: ICS_CONTENT_TYPE,
  };
}
