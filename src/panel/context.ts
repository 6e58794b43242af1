/**
 * What every page area of the panel is given and what it gives back. An area is a folder
 * of the side it serves (src/panel/account/ for customers, src/panel/provider/ for the
 * provider's console, src/panel/session/ for signing in) with its page(s) and its
 * catalogue, exporting a PanelArea; every area is listed once, in src/panel/areas.ts. An
 * area's routes are given its side's door to the services, and no other.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { PanelUser } from '../ports/user-store.js';
import type { Brand } from '../ports/brand-store.js';
import type { UserActor } from '../services/audit-log.js';
import type { Lang } from './catalogue.js';

/**
 * Who may use a route: anyone, a customer user, a user of a reseller account (a customer
 * user too), a provider user, or any signed-in user.
 */
export type PanelAccess = 'public' | 'account' | 'reseller' | 'provider' | 'signed-in';

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
  /** The signed-in customer's account is suspended: every page says so. */
  suspended: boolean;
  /** The signed-in customer's account is a reseller: the reseller side's pages are open to it. */
  reseller: boolean;
  /** The navigation of every area, sorted. */
  nav: readonly NavEntry[];
  /** The reseller's brand whose host the request came to; null: the provider's own panel. */
  brand: Brand | null;
}

export interface NavEntry {
  /** Path under /panel, e.g. '/keys'. */
  path: string;
  /** Its label, from the area's catalogue. */
  label: (lang: Lang) => string;
  /** Place in its side's menu: lower first. */
  order: number;
}

/**
 * One area: its routes (registered inside the panel plugin, so under /panel) with its
 * side's door `D`, and its entries in its side's menu. Routes are for the side's users
 * unless `config: { panelAccess }` says otherwise.
 */
export interface PanelArea<D> {
  name: string;
  nav?: readonly NavEntry[];
  routes(app: FastifyInstance, door: D): void | Promise<void>;
}

/**
 * The usual area: one entry in its side's menu, labelled by its catalogue's `nav`, whose path
 * opens the area's page (`page` answers GET `path`); `routes` adds the area's other routes.
 */
export function pageArea<D>(area: {
  name: string;
  path: string;
  messages: Readonly<Record<Lang, { nav: string }>>;
  order: number;
  page: (request: FastifyRequest, reply: FastifyReply, door: D) => Promise<FastifyReply>;
  routes?: (app: FastifyInstance, door: D) => void;
}): PanelArea<D> {
  return {
    name: area.name,
    nav: [{ path: area.path, label: (lang) => area.messages[lang].nav, order: area.order }],
    routes(app, door) {
      app.get(area.path, async (request, reply) => area.page(request, reply, door));
      area.routes?.(app, door);
    },
  };
}

declare module 'fastify' {
  interface FastifyContextConfig {
    panelAccess?: PanelAccess;
  }
  interface FastifyRequest {
    panel: PanelState;
  }
}

/** The signed-in user making the request, as an audit row names them. */
export function actorOf(request: FastifyRequest): UserActor {
  const user = request.panel.user;
  if (!user) throw new Error('an action ran without a signed-in user');
  return { kind: 'user', userId: user.id, email: user.email, address: request.ip };
}

/** The signed-in customer user's account; the access check guarantees there is one on 'account' routes. */
export function accountIdOf(state: PanelState): number {
  const id = state.user?.accountId;
  if (id === null || id === undefined) throw new Error('an account route ran without a customer user');
  return id;
}
