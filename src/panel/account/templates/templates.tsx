/** Templates: the account's saved texts with {{field}} placeholders; create and delete. */
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { AccountArea, AccountDoor } from '../door.js';
import { pageArea } from '../../context.js';
import { sendPage } from '../../layout.js';
import { InputField, Notice, TextAreaField } from '../../kit/fields.js';
import { PostForm, RowAction } from '../../kit/post-form.js';
import { Table } from '../../kit/table.js';
import { field, idOf, queryOf } from '../../kit/forms.js';
import { dateTime } from '../../kit/format.js';
import { templateMessages } from './catalogue.js';
import type { TemplateView } from '../../../services/template-service.js';
import type { TemplateError } from '../../../services/panel/account/templates.js';
import { NotFound } from '../../kit/not-found.js';

interface Posted {
  name: string;
  text: string;
  error: TemplateError;
}

async function page(
  request: FastifyRequest,
  reply: FastifyReply,
  door: AccountDoor,
  posted?: Posted,
): Promise<FastifyReply> {
  const state = request.panel;
  const lang = state.lang;
  const t = templateMessages[lang];
  const rows = await door.of(request).templates.list();
  const done = queryOf(request.query).done;
  const errorText: Record<TemplateError, string> = {
    'name-required': t.errNameRequired,
    'name-long': t.errNameLong,
    'text-required': t.errTextRequired,
    'text-long': t.errTextLong,
    placeholder: t.errPlaceholder,
    duplicate: t.errDuplicate,
    full: t.errFull,
  };
  const error = posted ? errorText[posted.error] : undefined;
  const onName = posted && (posted.error.startsWith('name') || posted.error === 'duplicate' || posted.error === 'full');
  return sendPage(request, reply, {
    title: t.title,
    status: posted ? 400 : 200,
    body: (
      <>
        <Notice text={done === 'created' ? t.created : done === 'removed' ? t.removed : undefined} />
        <p>{t.intro}</p>
        <Table<TemplateView>
          rows={rows}
          rowKey={(r) => r.template_id}
          empty={t.none}
          columns={[
            { header: t.colName, rowHeader: true, cell: (r) => r.name },
            { header: t.colText, cell: (r) => <pre class="message-text">{r.text}</pre> },
            { header: t.colPlaceholders, cell: (r) => r.placeholders.join(', ') },
            { header: t.colCreated, cell: (r) => dateTime(r.created_at, lang) },
            {
              header: '',
              cell: (r) => (
                <RowAction
                  action={`/panel/templates/${r.template_id}/delete`}
                  state={state}
                  label={t.remove}
                  ariaLabel={t.removeLabel(r.name)}
                  buttonClass="secondary"
                />
              ),
            },
          ]}
        />
        <h2>{t.create}</h2>
        <PostForm action="/panel/templates" state={state} class="stack">
          <InputField
            id="template-name"
            name="name"
            label={t.name}
            value={posted?.name ?? ''}
            error={onName ? error : undefined}
            state={state}
            attributes={{ maxLength: 100, required: true }}
          />
          <TextAreaField
            id="template-text"
            name="text"
            label={t.text}
            rows={5}
            value={posted?.text ?? ''}
            hint={t.textHint}
            error={onName ? undefined : error}
            state={state}
          />
          <div>
            <button type="submit">{t.submit}</button>
          </div>
        </PostForm>
      </>
    ),
  });
}

export const templatesArea: AccountArea = pageArea({
  name: 'templates',
  path: '/templates',
  messages: templateMessages,
  order: 25,
  page,
  routes(app, door) {
    app.post('/templates', async (request, reply) => {
      const name = field(request.body, 'name').slice(0, 200);
      const text = field(request.body, 'text').slice(0, 4000);
      const created = await door.of(request).templates.create(name, text);
      if (!created.ok) return page(request, reply, door, { name, text, error: created.error });
      return reply.redirect('/panel/templates?done=created', 303);
    });
    app.post<{ Params: { id: string } }>('/templates/:id/delete', async (request, reply) => {
      // Not wide: a template id is a 32-bit serial (a wider one fails PostgreSQL's cast).
      const id = idOf(request.params.id);
      if (!(await door.of(request).templates.remove(id))) throw new NotFound(`no template ${id}`);
      return reply.redirect('/panel/templates?done=removed', 303);
    });
  },
});
