/**
 * The panel: a Fastify plugin registered with prefix /panel beside the API, with its own
 * not-found and error pages (HTML, never the API's envelope). Before any handler: security
 * headers, the language, the session. Before every state change: the CSRF check. Each
 * side's areas (areas.ts) are mounted with that side's door to the services and its access
 * rule: a customer's pages answer 404 to a provider user and the console's to a customer;
 * the reseller side's answer 404 to every user but a reseller account's.
 */
import cookie from '@fastify/cookie';
import formbody from '@fastify/formbody';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { NavEntry, PanelAccess, PanelArea, PanelState } from './context.js';
import { chooseLang, isLang } from './catalogue.js';
import { kitText } from './kit/text.js';
import { sendPage } from './layout.js';
import { assetRoutes } from './assets.js';
import {
  clearSessionCookie,
  langCookie,
  preCsrfCookie,
  preCsrfOf,
  sameToken,
  securityHeaders,
  sessionCookie,
  setLangCookie,
} from './security.js';
import { csrfTokenOf } from '../services/panel/users.js';
import { NotFound } from './kit/not-found.js';
import { AccountSuspended } from '../services/panel/account/account-changes.js';
import type { PanelServices } from '../services/panel/panel-services.js';
import { homes, panelAreas } from './areas.js';
import { accountDoor } from './account/door.js';
import { providerDoor } from './provider/door.js';
import { resellerDoor } from './reseller/door.js';
import { panelPath } from './paths.js';
import { ServerStopping } from '../http/drain-on-stop.js';
import { BodyBudgetFull } from '../http/body-budget.js';
import { hostOfHeader } from '../domain/brand.js';
import { brandRoutes } from './reseller/brand/brand-routes.js';

export interface PanelPluginOptions extends PanelServices {
  /** Called when the server closes (releases what the services hold, such as the webhook sender). */
  close?: () => void;
}

/** A form of the panel: a CSV import pasted into a text box is the largest (about 2 MB). */
const panelBodyLimit = 2 * 1024 * 1024;

const safeMethods = new Set(['GET', 'HEAD', 'OPTIONS']);

export function notFoundPage(request: FastifyRequest, reply: FastifyReply): FastifyReply {
  const t = kitText[request.panel.lang];
  return sendPage(request, reply, {
    title: t.notFoundTitle,
    status: 404,
    body: (
      <p>
        {t.notFoundText} <a href="/panel/">{t.backToPanel}</a>
      </p>
    ),
  });
}

/** A change of a suspended account, refused: the page says why (the layout's notice says it again on every page). */
function suspendedPage(request: FastifyRequest, reply: FastifyReply): FastifyReply {
  const t = kitText[request.panel.lang];
  request.panel.suspended = true;
  return sendPage(request, reply, { title: t.suspendedTitle, status: 403, body: <p>{t.suspendedAction}</p> });
}

function forbiddenPage(request: FastifyRequest, reply: FastifyReply): FastifyReply {
  const t = kitText[request.panel.lang];
  return sendPage(request, reply, { title: t.forbiddenTitle, status: 403, body: <p>{t.forbiddenText}</p> });
}

function submittedToken(request: FastifyRequest): string | undefined {
  const body = request.body;
  if (body !== null && typeof body === 'object' && '_csrf' in body) {
    const value = (body as { _csrf: unknown })._csrf;
    if (typeof value === 'string') return value;
  }
  const header = request.headers['x-csrf-token'];
  return typeof header === 'string' ? header : undefined;
}

const navOf = (areas: readonly PanelArea<unknown>[]): NavEntry[] =>
  areas.flatMap((a) => a.nav ?? []).sort((a, b) => a.order - b.order);

/**
 * Mounts a side's areas in a context of their own whose routes are, unless they say
 * otherwise, for `access` users only.
 */
async function mountSide<D>(
  app: FastifyInstance,
  areas: readonly PanelArea<D>[],
  door: D,
  access: PanelAccess,
): Promise<void> {
  await app.register(async (side) => {
    side.addHook('onRoute', (route) => {
      route.config = { ...route.config, panelAccess: route.config?.panelAccess ?? access };
    });
    for (const area of areas) await area.routes(side, door);
  });
}

export async function panelPlugin(app: FastifyInstance, options: PanelPluginOptions): Promise<void> {
  const sessions = options.sessions;
  const nav = {
    account: navOf(panelAreas.account),
    // A reseller's users have their account's pages, and the reseller side's after them
    // (its brand page is mounted apart, with the brands service as its door).
    reseller: navOf([...panelAreas.account, ...panelAreas.reseller, brandRoutes]),
    provider: navOf(panelAreas.provider),
  };

  await app.register(cookie);
  // Forms post url-encoded bodies; the API's parsers stay inside the API.
  await app.register(formbody, { bodyLimit: panelBodyLimit });
  const close = options.close;
  if (close) app.addHook('onClose', async () => close());
  app.decorateRequest('panel', null as unknown as PanelState);

  app.addHook('onRequest', async (request, reply) => {
    securityHeaders(reply);
    const lang = chooseLang(request.cookies[langCookie], request.headers['accept-language']);
    const state: PanelState = {
      lang,
      user: null,
      sessionToken: null,
      csrf: null,
      preCsrf: '',
      sessionEnded: false,
      suspended: false,
      reseller: false,
      nav: [],
      brand: null,
    };
    request.panel = state;
    if (request.url.startsWith('/panel/assets/')) return;
    reply.header('cache-control', 'no-store');
    state.brand = await options.brands.forHost(hostOfHeader(request.host));
    state.preCsrf = preCsrfOf(request, reply);
    const token = request.cookies[sessionCookie];
    if (token !== undefined && token !== '') {
      const found = await sessions.session(token, state.brand?.accountId ?? null);
      if (found) {
        state.user = found.user;
        state.sessionToken = token;
        state.csrf = csrfTokenOf(token);
        state.nav = nav.provider;
        if (found.user.accountId !== null) {
          const standing = await options.account.standing(found.user.accountId);
          state.suspended = standing.suspended;
          state.reseller = standing.reseller;
          state.nav = standing.reseller ? nav.reseller : nav.account;
        }
      } else {
        state.sessionEnded = true;
        clearSessionCookie(request, reply);
      }
    }
  });

  app.addHook('preHandler', async (request, reply) => {
    // Unknown paths are answered "not found" to anyone: there is nothing there to guard.
    if (request.is404) return;
    const access = request.routeOptions.config.panelAccess ?? 'account';
    const state = request.panel;
    if (!safeMethods.has(request.method)) {
      // A signed-in user's forms carry the session's token; signed-out forms the cookie's.
      const submitted = submittedToken(request);
      const accepted =
        sameToken(submitted, state.csrf) ||
        (access === 'public' && sameToken(submitted, request.cookies[preCsrfCookie]));
      if (!accepted) return forbiddenPage(request, reply);
    }
    if (access === 'public') return;
    const user = state.user;
    if (!user) {
      const query = new URLSearchParams();
      if (request.method === 'GET') query.set('next', request.url);
      if (state.sessionEnded) query.set('done', 'expired');
      const search = query.toString();
      return reply.redirect(`/panel/sign-in${search === '' ? '' : `?${search}`}`, 303);
    }
    if (access === 'account' && user.accountId === null) return notFoundPage(request, reply);
    if (access === 'reseller' && (user.accountId === null || !state.reseller)) return notFoundPage(request, reply);
    if (access === 'provider' && user.accountId !== null) return notFoundPage(request, reply);
  });

  app.setNotFoundHandler(async (request, reply) => notFoundPage(request, reply));

  app.setErrorHandler(async (error, request, reply) => {
    if (error instanceof NotFound) return notFoundPage(request, reply);
    if (error instanceof AccountSuspended) return suspendedPage(request, reply);
    if (error instanceof BodyBudgetFull) {
      // Refused before the panel's own hooks ran (body-budget.ts): no language chosen yet, no page.
      const t = kitText[(request.panel as PanelState | null)?.lang ?? 'en'];
      return reply
        .code(503)
        .header('retry-after', String(error.retryAfterSeconds))
        .type('text/plain; charset=utf-8')
        .send(t.errorText);
    }
    if (error instanceof ServerStopping) {
      // The drain refuses before the panel's own hooks ran: no language chosen yet, no page.
      const t = kitText[(request.panel as PanelState | null)?.lang ?? 'en'];
      return reply.code(503).type('text/plain; charset=utf-8').send(t.errorText);
    }
    const status =
      typeof (error as { statusCode?: unknown }).statusCode === 'number'
        ? (error as { statusCode: number }).statusCode
        : 500;
    if (status >= 400 && status < 500 && status !== 404) return forbiddenOrBad(request, reply, status);
    if (status === 404) return notFoundPage(request, reply);
    request.log.error(
      { err: { message: error instanceof Error ? error.message : String(error) }, path: request.routeOptions.url },
      'panel: unexpected error',
    );
    const t = kitText[request.panel.lang];
    return sendPage(request, reply, { title: t.errorTitle, status: 500, body: <p>{t.errorText}</p> });
  });

  assetRoutes(app);

  app.get<{ Params: { lang: string }; Querystring: { next?: string } }>(
    '/lang/:lang',
    { config: { panelAccess: 'public' } },
    async (request, reply) => {
      // A preference of this browser, not a change to anything stored: a plain link, no token.
      if (isLang(request.params.lang)) setLangCookie(request, reply, request.params.lang);
      return reply.redirect(panelPath(request.query.next), 303);
    },
  );

  app.get('/', { config: { panelAccess: 'signed-in' } }, async (request, reply) => {
    const user = request.panel.user;
    return reply.redirect(`/panel${user?.accountId === null ? homes.provider : homes.account}`, 303);
  });

  for (const area of panelAreas.session) await area.routes(app, sessions);
  await mountSide(app, panelAreas.account, accountDoor(options.account), 'account');
  await mountSide(app, panelAreas.reseller, resellerDoor(options.reseller), 'reseller');
  await mountSide(app, panelAreas.provider, providerDoor(options.provider), 'provider');
  // White label: the brand's logo and colours (public), and a reseller's page to set them.
  await mountSide(app, [brandRoutes], options.brands, 'account');
}

function forbiddenOrBad(request: FastifyRequest, reply: FastifyReply, status: number): FastifyReply {
  if (status === 403) return forbiddenPage(request, reply);
  const t = kitText[request.panel.lang];
  return sendPage(request, reply, { title: t.errorTitle, status, body: <p>{t.errorText}</p> });
}
