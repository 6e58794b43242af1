import type { ComponentChildren } from 'preact';
import { render } from 'preact-render-to-string';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { PanelState } from './context.js';
import { common } from './i18n/common.js';
import { assetPath } from './assets.js';

/** htmx without inline styles or eval, so that the Content-Security-Policy holds. */
const htmxConfig = JSON.stringify({ includeIndicatorStyles: false, allowEval: false, allowScriptTags: false });

function LanguageSwitch(props: { state: PanelState; back: string }) {
  const t = common[props.state.lang];
  const next = encodeURIComponent(props.back);
  return (
    <nav class="lang" aria-label={t.languageNav}>
      <ul>
        <li>
          <a
            href={`/panel/lang/en?next=${next}`}
            lang="en"
            hreflang="en"
            aria-current={props.state.lang === 'en' ? 'true' : undefined}
          >
            {t.switchToEnglish}
          </a>
        </li>
        <li>
          <a
            href={`/panel/lang/tr?next=${next}`}
            lang="tr"
            hreflang="tr"
            aria-current={props.state.lang === 'tr' ? 'true' : undefined}
          >
            {t.switchToTurkish}
          </a>
        </li>
      </ul>
    </nav>
  );
}

/** A hidden field with the session's synchronizer token: every POST form of a signed-in page carries one. */
export function Csrf(props: { state: PanelState }) {
  return <input type="hidden" name="_csrf" value={props.state.csrf ?? props.state.preCsrf} />;
}

function Header(props: { state: PanelState; here: string; back: string }) {
  const { state } = props;
  const t = common[state.lang];
  const user = state.user;
  const entries = user ? state.nav.filter((n) => n.for === (user.accountId === null ? 'provider' : 'account')) : [];
  return (
    <header class="top">
      <a class="brand" href="/panel/">
        {t.product}
      </a>
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
            <form method="post" action="/panel/sign-out">
              <Csrf state={state} />
              <button type="submit">{t.signOut}</button>
            </form>
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
  const t = common[state.lang];
  const html = render(
    <html lang={state.lang}>
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <meta name="htmx-config" content={htmxConfig} />
        <title>{`${page.title} · ${t.product}`}</title>
        {/* No favicon: the browser would otherwise ask for /favicon.ico, outside the panel. */}
        <link rel="icon" href="data:," />
        <link rel="stylesheet" href={assetPath('panel.css')} />
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
          {page.body}
        </main>
      </body>
    </html>,
  );
  return reply
    .code(page.status ?? 200)
    .type('text/html; charset=utf-8')
    .send(`<!doctype html>\n${html}`);
}

/** A field's error, tied to its input by id (aria-describedby) and shown next to it. */
export function FieldError(props: { id: string; text: string | undefined; state: PanelState }) {
  if (props.text === undefined) return null;
  return (
    <p class="field-error" id={props.id}>
      {common[props.state.lang].fieldError(props.text)}
    </p>
  );
}

/**
 * A labelled one-line text input with its error under it, wired for screen readers
 * (`aria-invalid`, `aria-describedby` naming the error): `id`'s error is `${id}-error`.
 */
export function TextField(props: {
  id: string;
  name: string;
  label: string;
  value: string;
  error: string | undefined;
  state: PanelState;
  numeric?: boolean;
  maxLength?: number;
  optional?: boolean;
}) {
  const errorId = `${props.id}-error`;
  return (
    <div>
      <label for={props.id}>{props.label}</label>
      <input
        id={props.id}
        name={props.name}
        type="text"
        {...(props.numeric ? { inputMode: 'numeric' as const } : {})}
        {...(props.maxLength !== undefined ? { maxLength: props.maxLength } : {})}
        required={!props.optional}
        value={props.value}
        aria-invalid={props.error ? 'true' : undefined}
        aria-describedby={props.error ? errorId : undefined}
      />
      <FieldError id={errorId} text={props.error} state={props.state} />
    </div>
  );
}

/** A status line shown at the top of a page after an action. */
export function Notice(props: { text: string | undefined; kind?: 'ok' | 'error' }) {
  if (props.text === undefined) return null;
  return (
    <p class={`notice ${props.kind ?? 'ok'}`} role={props.kind === 'error' ? 'alert' : 'status'}>
      {props.text}
    </p>
  );
}
