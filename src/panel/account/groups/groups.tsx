/** Groups: the list and creation; a group's own page (rename, contacts, import, export, delete) is group-page.tsx. */
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { AccountArea, AccountDoor } from '../door.js';
import { pageArea } from '../../context.js';
import { sendPage } from '../../layout.js';
import { InputField, Notice } from '../../kit/fields.js';
import { PostForm } from '../../kit/post-form.js';
import { Table } from '../../kit/table.js';
import { field, queryOf } from '../../kit/forms.js';
import { dateTime } from '../../kit/format.js';
import { groupMessages } from './catalogue.js';
import { doneNotice, groupPageRoutes, nameErrorText } from './group-page.js';
import type { GroupRow } from '../../../ports/panel-queries.js';

async function listPage(
  request: FastifyRequest,
  reply: FastifyReply,
  door: AccountDoor,
  form: { name: string; error?: string },
  status = 200,
): Promise<FastifyReply> {
  const state = request.panel;
  const lang = state.lang;
  const t = groupMessages[lang];
  const groups = await door.of(request).groups.list();
  return sendPage(request, reply, {
    title: t.title,
    status,
    body: (
      <>
        <Notice text={doneNotice(lang, queryOf(request.query).done)} />
        <PostForm action="/panel/groups" state={state}>
          <InputField
            id="group-name"
            name="name"
            label={t.groupName}
            value={form.name}
            error={form.error}
            state={state}
            attributes={{ required: true, maxLength: 100 }}
          />
          <button type="submit">{t.create}</button>
        </PostForm>
        <Table<GroupRow>
          rows={groups}
          rowKey={(g) => g.id}
          empty={t.none}
          columns={[
            { header: t.colGroup, rowHeader: true, cell: (g) => <a href={`/panel/groups/${g.id}`}>{g.name}</a> },
            { header: t.colContacts, cell: (g) => g.contacts },
            { header: t.colCreated, cell: (g) => dateTime(g.createdAt, lang, 'second') },
          ]}
        />
      </>
    ),
  });
}

export const groupsArea: AccountArea = pageArea({
  name: 'groups',
  path: '/groups',
  messages: groupMessages,
  order: 50,
  page: (request, reply, door) => listPage(request, reply, door, { name: '' }),
  routes(app, door) {
    app.post('/groups', async (request, reply) => {
      const name = field(request.body, 'name');
      const created = await door.of(request).groups.create(name);
      if (created.ok) return reply.redirect(`/panel/groups/${created.id}?done=created`, 303);
      return listPage(request, reply, door, { name, error: nameErrorText(request.panel.lang, created.error) }, 400);
    });

    groupPageRoutes(app, door);
  },
});
