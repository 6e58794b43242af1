/** Creating a key, and the page that shows a new key once (after creation and rotation). */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { AccountDoor } from '../door.js';
import { sendPage } from '../../layout.js';
import { Notice } from '../../kit/fields.js';
import { PostForm } from '../../kit/post-form.js';
import { ticked } from '../../kit/forms.js';
import { kitText } from '../../kit/text.js';
import { keyDetailMessages } from './key-catalogue.js';
import { KeySettingsFields, formValuesOf, newKeyPermissions, readKeyForm } from './key-form.js';
import type { KeyFormErrors, KeyFormValues } from './key-form.js';
import { defaultKeySettings } from '../../../services/admin.js';
import { found } from '../../kit/not-found.js';

function newKeyPage(
  request: FastifyRequest,
  reply: FastifyReply,
  values: KeyFormValues,
  errors: KeyFormErrors,
  sandbox: boolean,
  status = 200,
): FastifyReply {
  const state = request.panel;
  const t = keyDetailMessages[state.lang];
  return sendPage(request, reply, {
    title: t.newTitle,
    status,
    body: (
      <>
        {Object.keys(errors).length > 0 && <Notice kind="error" text={t.fixErrors} />}
        <PostForm action="/panel/keys" state={state} class="stack">
          <KeySettingsFields state={state} values={values} errors={errors} />
          <label>
            <input type="checkbox" name="sandbox" value="1" checked={sandbox} /> {t.sandbox}
          </label>
          <div class="actions">
            <button type="submit">{t.create}</button>
            <a href="/panel/keys">{kitText[state.lang].cancel}</a>
          </div>
        </PostForm>
      </>
    ),
  });
}

/** The key itself, shown this once, with a copy button. */
export function shownOncePage(
  request: FastifyRequest,
  reply: FastifyReply,
  title: string,
  apiKey: string,
  keyId: number,
  extra?: string,
): FastifyReply {
  const t = keyDetailMessages[request.panel.lang];
  return sendPage(request, reply, {
    title,
    body: (
      <>
        <p class="notice error" role="alert">
          <strong>{t.shownOnce}</strong>
        </p>
        <div class="stack">
          <label for="new-key">{t.keyValue}</label>
          <input id="new-key" type="text" readOnly value={apiKey} class="secret" />
          <p class="actions">
            <button type="button" class="secondary" data-copy-target="new-key" data-copied={t.copied}>
              {t.copy}
            </button>
          </p>
        </div>
        {extra !== undefined && <p>{extra}</p>}
        <p>
          <a href={`/panel/keys/${keyId}`}>{t.toKey}</a> · <a href="/panel/keys">{t.backToKeys}</a>
        </p>
      </>
    ),
  });
}

export function keyCreateRoutes(app: FastifyInstance, door: AccountDoor): void {
  app.get('/keys/new', async (request, reply) =>
    newKeyPage(request, reply, formValuesOf({ ...defaultKeySettings, permissions: newKeyPermissions() }), {}, false),
  );

  app.post('/keys', async (request, reply) => {
    const sandbox = ticked(request.body, 'sandbox');
    const read = readKeyForm(request.body, newKeyPermissions(), request.panel);
    if ('errors' in read) return newKeyPage(request, reply, read.values, read.errors, sandbox, 400);
    const made = await found(door.of(request).keys.create({ ...defaultKeySettings, ...read.ok, sandbox }));
    return shownOncePage(request, reply, keyDetailMessages[request.panel.lang].createdTitle, made.api_key, made.id);
  });
}
