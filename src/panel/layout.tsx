import type { ComponentChildren } from 'preact';
import { render } from 'preact-render-to-string';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { PanelState } from './context.js';
import { kitText } from './kit/text.js';
import { languages } from './catalogue.js';
import { PostForm } from './kit/post-form.js';
import { assetPath } from './assets.js';
import { BrandFooter, BrandMark } from './reseller/brand/brand-mark.js';

/** htmx without inline styles or eval, so that the Content-Security-Policy holds. */
const htmxConfig = JSON.stringify({ includeIndicatorStyles: false, allowEval: false, allowScriptTags: false });

function LanguageSwitch(props: { state: PanelState; back: string }) {
  const t = kitText[props.state.lang];
  const next = encodeURIComponent(props.back);
  return (
    <nav class="lang" aria-label={t.languageNav}>
      <ul>
        {languages.map((lang) => (
          <li key={lang}>
            <a
              href={`/panel/lang/${lang}?next=${next}`}
              lang={lang}
              hreflang={lang}
              aria-current={props.state.lang === lang ? 'true' : undefined}
            >
              {lang === 'en' ? t.switchToEnglish : t.switchToTurkish}
            </a>
          </li>
        ))}
      </ul>
    </nav>
  );
}

function Header(props: { state: PanelState; here: string; back: string }) {
  const { state } = props;
  const t = kitText[state.lang];
  const user = state.user;
  const entries = user ? state.nav : [];
  return (
    <header class="top">
      <BrandMark state={state} fallback={t.product} />
      {entries.length > 0 && (
        <nav class="main-nav" aria-label={t.mainNav}>
          <ul>
            {entries.map((n) => (
              <li key={n.path}>
                <a
                  href={`/panel${n.path}`}
                  aria-current={
                    props.here === `/panel${n.path}` || props.here.startsWith(`/panel${n.path}/`) ? 'page' : undefined
                  }
                >
                  {n.label(state.lang)}
                </a>
              </li>
            ))}
          </ul>
        </nav>
      )}
      <div class="session">
        <LanguageSwitch state={state} back={props.back} />
        {user && (
          <>
            <span class="who">{t.signedInAs(user.email)}</span>
            <PostForm action="/panel/sign-out" state={state}>
              <button type="submit">{t.signOut}</button>
            </PostForm>
          </>
        )}
      </div>
    </header>
  );
}

export interface PageOptions {
  title: string;
  body: ComponentChildren;
  status?: number;
}

/** Renders a whole page in the layout and sends it. */
export function sendPage(request: FastifyRequest, reply: FastifyReply, page: PageOptions): FastifyReply {
  const state = request.panel;
  const here = request.url.split('?')[0] ?? '/panel/';
  // The language links come back here; a page answering a POST has no address to come back
  // to (its URL takes POST only), so they go to the panel's start.
  const back = request.method === 'GET' ? request.url : '/panel/';
  const t = kitText[state.lang];
  const html = render(
    <html lang={state.lang}>
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <meta name="htmx-config" content={htmxConfig} />
        <title>{`${page.title} · ${state.brand?.name ?? t.product}`}</title>
        {/* No favicon: the browser would otherwise ask for /favicon.ico, outside the panel. */}
        <link rel="icon" href="data:," />
        <link rel="stylesheet" href={assetPath('panel.css')} />
        {state.brand?.color && <link rel="stylesheet" href={`/panel/brand/style.css?v=${state.brand.updatedAt}`} />}
        <script src={assetPath('htmx.min.js')} defer></script>
        <script src={assetPath('panel.js')} defer></script>
      </head>
      <body hx-headers={state.csrf === null ? undefined : JSON.stringify({ 'X-CSRF-Token': state.csrf })}>
        <a class="skip" href="#main">
          {t.skipToContent}
        </a>
        <Header state={state} here={here} back={back} />
        <main id="main" tabIndex={-1}>
          <h1>{page.title}</h1>
          {state.suspended && (
            <p class="notice error" role="status">
              {t.suspended}
            </p>
          )}
          {page.body}
        </main>
        <BrandFooter state={state} />
      </body>
    </html>,
  );
  return reply
    .code(page.status ?? 200)
    .type('text/html; charset=utf-8')
    .send(`<!doctype html>\n${html}`);
}
