// The event-reminder calendar file (spec 3 `event-reminder`): RFC 5545, UTC times only (no TZID, so
// no VTIMEZONE that Outlook would mishandle), METHOD:PUBLISH so clients add it rather than treat it as
// a meeting invitation they must answer. ical-generator handles escaping and CRLF; the 75-octet folding is
// ours (fold.ts, identical output at a hundredth of the cost), applied to the same unfolded text.
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

export function buildIcs(event: CalendarEvent, brand: Brand): string {
  const calendar = calendarOf(event, brand);
  // ICalCalendar.toString() for the properties calendarOf sets, minus its folding (pinned by the
  // property test against buildIcsReference).
  const unfolded =
    `BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-${calendar.prodId()}\r\nMETHOD:${calendar.method()}\r\n` +
    calendar.events().map((e) => e.toString()).join('') +
    'END:VCALENDAR';
  // RFC 5545 §3.1: every content line ends with CRLF, the last one included.
  return `${foldLines(unfolded)}\r\n`;
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
  return { filename: 'event.ics', content: Buffer.from(buildIcs(event, brand), 'utf8').toString('base64'), contentType: ICS_CONTENT_TYPE };
}
