/**
 * What every page area of the panel is given and what it gives back. A page area is one
 * file under src/panel/areas/ exporting a PanelArea: its routes (registered inside the
 * panel plugin, so under /panel) and its entries in the navigation. Areas are listed in
 * src/panel/areas/index.ts (this helper's) and src/panel/areas/data.ts (the data pages').
 */
import type { FastifyInstance } from 'fastify';
import type { Clock } from '../ports/clock.js';
import type { PanelUser } from '../ports/user-store.js';
import type { UserService } from '../services/panel-users.js';
import type { AccountPanel } from '../services/account-panel.js';
import type { Services } from '../services/services.js';
import type { ProviderLive } from '../services/provider-live.js';
import type { Lang } from './i18n/messages.js';

/** Who may use a route: anyone, a customer user (the default), a provider user, or any signed-in user. */
export type PanelAccess = 'public' | 'account' | 'provider' | 'signed-in';

/** A route's options for the provider console's pages and actions: provider users only. */
export const providerOnly = { config: { panelAccess: 'provider' as const } };

export interface PanelDeps {
  users: UserService;
  account: AccountPanel;
  /** The API's services, for pages that show or send what the API does. */
  services: Services;
  clock: Clock;
  /** The provider console's live pages (carriers, traffic); absent outside `serve` (tests of other pages). */
  live?: ProviderLive;
}

/** What the panel knows about the request, set before any handler runs. */
export interface PanelState {
  lang: Lang;
  user: PanelUser | null;
  /** The raw session token (from the cookie), when the session is valid. */
  sessionToken: string | null;
  /** The synchronizer token forms and htmx requests must send back; null when signed out. */
  csrf: string | null;
  /** The signed-out forms' token (sign-in, set-password), double-submitted in a cookie. */
  preCsrf: string;
  /** The browser sent a session cookie that no longer works (expired, signed out elsewhere). */
  sessionEnded: boolean;
  /** The navigation of every area, sorted. */
  nav: readonly NavEntry[];
}

export interface NavEntry {
  /** Path under /panel, e.g. '/keys'. */
  path: string;
  /** Its label, from the area's catalogue. */
  label: (lang: Lang) => string;
  /** Place in the menu: lower first (overview 10, sending 20..., keys 70, sender IDs 80, account 90). */
  order: number;
  /** Which users see it. */
  for: 'account' | 'provider';
}

export interface PanelArea {
  name: string;
  nav?: readonly NavEntry[];
  /** The page /panel/ shows for a customer user (one area at most claims it). */
  home?: string;
  routes(app: FastifyInstance, deps: PanelDeps): void | Promise<void>;
}

declare module 'fastify' {
  interface FastifyContextConfig {
    panelAccess?: PanelAccess;
  }
  interface FastifyRequest {
    panel: PanelState;
  }
}

/** The signed-in customer user's account; the access check guarantees there is one on 'account' routes. */
export function accountIdOf(state: PanelState): number {
  const id = state.user?.accountId;
  if (id === null || id === undefined) throw new Error('an account route ran without a customer user');
  return id;
}
