import { templateSchemas } from '@domdao/notification-contract';
import { icsAttachment } from '../calendar/ics.ts';
import { formatDateTime } from '../rendering/format.ts';
import { defineTemplate } from './template-schema.ts';

export const eventReminder = defineTemplate({
  type: 'event-reminder',
  brands: 'both',
  description:
    'Reminds of an event 24 hours or 1 hour ahead, with an event.ics calendar attachment built by the service.',
  schema: templateSchemas['event-reminder'],
  example: {
    recipient_name: 'Ada Lovelace',
    event_id: 'townhall-2026-11@domdao.example',
    event_title: 'November town hall',
    start_time: '2026-11-23T17:00:00Z',
    end_time: '2026-11-23T18:00:00Z',
    window_label: '24h',
    event_description: 'Quarterly treasury report, then open questions.\nBring your proposals.',
    event_location: 'Online',
    event_url: 'https://app.domdao.example/events/townhall-2026-11',
    organizer_name: 'DOM DAO Council',
    organizer_email: 'council@domdao.example',
    preferences_url: 'https://app.domdao.example/settings/notifications',
  },
  check: (d) =>
    Date.parse(d.end_time) <= Date.parse(d.start_time)
      ? [{ field: 'data.end_time', message: 'must be after start_time' }]
      : [],
  render: (d, { brand, now }) => {
    const when = formatDateTime(d.start_time);
    // Decision N32: the words say what window_label says and nothing more: a 24h reminder sent 13 hours
    // ahead is not "tomorrow" when the event is later today, nor is a 1h one sent 40 minutes ahead "in 1 hour".
    const soon = d.window_label === '1h' ? 'within the hour' : 'within 24 hours';
    return {
      subject: `Reminder: ${d.event_title} starts ${soon}`,
      preheader: `${when}${d.event_location ? `, ${d.event_location}` : ''}.`,
      reason: `You received this reminder because you signed up for this ${brand.name} event.`,
      blocks: [
        { kind: 'heading', text: d.event_title },
        { kind: 'paragraph', text: `Hi ${d.recipient_name}, this is a reminder that ${d.event_title} starts ${soon}.` },
        {
          kind: 'details',
          rows: [
            ['Starts', when],
            ['Ends', formatDateTime(d.end_time)],
            ...(d.event_location ? [['Where', d.event_location] as [string, string]] : []),
            ...(d.organizer_name ? [['Organiser', d.organizer_name] as [string, string]] : []),
          ],
        },
        ...(d.event_description ? [{ kind: 'paragraph' as const, text: d.event_description }] : []),
        ...(d.event_url ? [{ kind: 'button' as const, label: 'Event details', url: d.event_url }] : []),
        { kind: 'note', text: 'The attached event.ics adds this event to your calendar.' },
        ...(d.preferences_url
          ? [{ kind: 'link' as const, label: 'Reminder preferences', url: d.preferences_url }]
          : []),
      ],
      attachments: [
        icsAttachment(
          {
            uid: d.event_id,
            title: d.event_title,
            start: d.start_time,
            end: d.end_time,
            description: [d.event_description, d.event_url].filter(Boolean).join('\n\n') || d.event_title,
            ...(d.event_location !== undefined && { location: d.event_location }),
            ...(d.event_url !== undefined && { url: d.event_url }),
            // ORGANIZER needs a mailto address; without organizer_email it is the brand's sending address.
            organizer: { name: d.organizer_name ?? brand.name, email: d.organizer_email ?? brand.fromAddress },
            stamp: now,
          },
          brand,
        ),
      ],
    };
  },
});
