// The app's pages, one line each: a new page is a component in pages/ and a line here (and, if it is
// in the main navigation, in NAV); what two pages share goes in components/ (decision F61, checked by
// apps/portal/test/pages-are-routes.test.ts). The bridge serves index.html for every path listed in
// services/bridge/src/features/portal/routes.ts APP_PATHS.
import type { ComponentType } from 'preact';
import { AdminPage } from './pages/admin.tsx';
import { AuditPage } from './pages/audit.tsx';
import { CampaignPage } from './pages/campaign.tsx';
import { CampaignsPage } from './pages/campaigns.tsx';
import { DelegationPage } from './pages/delegation.tsx';
import { GovernPage } from './pages/govern.tsx';
import { HomePage } from './pages/home.tsx';
import { JoinPage } from './pages/join.tsx';
import { MePage } from './pages/me.tsx';
import { PricePage } from './pages/price.tsx';
import { ProposalPage } from './pages/proposal.tsx';
import { WalletPage } from './pages/wallet.tsx';

export const ROUTES: Array<{ path: string; component: ComponentType<Record<string, string>>; title: string }> = [
  { path: '/', component: HomePage, title: 'Home' },
  { path: '/join', component: JoinPage, title: 'Join' },
  { path: '/govern', component: GovernPage, title: 'Governance' },
  { path: '/proposals/:id', component: ProposalPage as ComponentType<Record<string, string>>, title: 'Proposal' },
  { path: '/price', component: PricePage, title: 'DOM price' },
  { path: '/campaigns', component: CampaignsPage, title: 'Campaigns' },
  { path: '/campaigns/:id', component: CampaignPage as ComponentType<Record<string, string>>, title: 'Campaign' },
  { path: '/wallet', component: WalletPage, title: 'Wallet' },
  { path: '/me', component: MePage, title: 'My membership' },
  { path: '/delegation', component: DelegationPage, title: 'Delegation' },
  { path: '/admin', component: AdminPage, title: 'Admin console' },
  { path: '/admin/audit', component: AuditPage, title: 'Audit log' },
];

/** Links the app routes itself; any other link (the bridge's /login, /activity, /preferences, the API) loads normally. */
export const APP_LINK =
  /^\/(?:$|[?#]|(?:join|govern|price|campaigns|wallet|me|admin|delegation)(?:[/?#]|$)|proposals\/)/;

export const NAV: Array<{ href: string; label: string }> = [
  { href: '/govern', label: 'Govern' },
  { href: '/delegation', label: 'Delegate' },
  { href: '/price', label: 'Price' },
  { href: '/campaigns', label: 'Campaigns' },
  { href: '/wallet', label: 'Wallet' },
  { href: '/me', label: 'Me' },
];
