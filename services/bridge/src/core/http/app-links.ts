// Where a member lands when they click a link in an email or the activity feed: the member web app's
// pages (decision N3, as revised by F10), never a JSON endpoint. One place, because the inbox and
// the member emails both link to proposals and campaigns and may not import each other.
const at = (base: string, path: string) => `${base.replace(/\/+$/, '')}${path}`;

export const appLinks = {
  proposal: (base: string, id: string) => at(base, `/proposals/${encodeURIComponent(id)}`),
  campaign: (base: string, id: string) => at(base, `/campaigns/${encodeURIComponent(id)}`),
  /** Joining: the app's registration page (an invitation's link). */
  join: (base: string) => at(base, '/join'),
};
