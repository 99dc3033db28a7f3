// Human-readable dates for email bodies; times are shown in UTC and say so, since the service does
// not know the recipient's time zone.
const DATE = new Intl.DateTimeFormat('en-GB', { timeZone: 'UTC', day: 'numeric', month: 'long', year: 'numeric' });
const DATE_TIME = new Intl.DateTimeFormat('en-GB', {
  timeZone: 'UTC', day: 'numeric', month: 'long', year: 'numeric', hour: '2-digit', minute: '2-digit', hourCycle: 'h23',
});

export function formatDate(iso: string): string {
  return DATE.format(new Date(iso.length === 10 ? `${iso}T00:00:00Z` : iso));
}

export function formatDateTime(iso: string): string {
  if (iso.length === 10) return formatDate(iso);
  return `${DATE_TIME.format(new Date(iso))} UTC`;
}

export function plural(n: number, one: string, many = `${one}s`): string {
  return `${n} ${n === 1 ? one : many}`;
}
