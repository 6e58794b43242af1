/** One group: rename, add contacts typed or from a CSV with a per-row report, its contacts (paged), export, delete. */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { AccountDoor } from '../door.js';
import { sendPage } from '../../layout.js';
import { InputField, Notice } from '../../kit/fields.js';
import { PostForm, RowAction } from '../../kit/post-form.js';
import { field, idOf, queryOf } from '../../kit/forms.js';
import { csvErrorText, importBodyLimit, postedEntries, sendCsv } from '../../kit/csv.js';
import { ImportForm } from '../../kit/csv-fields.js';
import { PageScripts } from '../../kit/scripts.js';
import { groupMessages } from './catalogue.js';
import type { ImportReport } from '../../../services/panel/account/csv-import.js';
import type { NameError } from '../../../services/panel/account/groups.js';
import type { Lang } from '../../catalogue.js';
import { NotFound } from '../../kit/not-found.js';
import { Contacts } from './contacts.js';

export function nameErrorText(lang: Lang, e: NameError): string {
  const t = groupMessages[lang];
  return { required: t.errRequired, 'too-long': t.errTooLong, duplicate: t.errDuplicate }[e];
}

/** The notice of the action the page comes back from (`?done=`). */
export function doneNotice(lang: Lang, done: string | undefined): string | undefined {
  const t = groupMessages[lang];
  const notices: Record<string, string> = {
    created: t.created,
    renamed: t.renamed,
    deleted: t.deleted,
    removed: t.contactRemoved,
  };
  return done === undefined ? undefined : notices[done];
}

interface GroupForm {
  rename?: { value: string; error: string };
  add?: { numbers: string; csv: string; error?: string };
  report?: ImportReport;
}

async function groupPage(
  request: FastifyRequest,
  reply: FastifyReply,
  door: AccountDoor,
  groupId: number,
  form: GroupForm = {},
  status = 200,
): Promise<FastifyReply> {
  const state = request.panel;
  const lang = state.lang;
  const t = groupMessages[lang];
  const groups = door.of(request).groups;
  const group = await groups.group(groupId);
  if (!group) throw new NotFound(`no group ${groupId}`);
  const query = queryOf(request.query);
  const after = query.after !== undefined && /^\d{1,15}$/.test(query.after) ? query.after : null;
  const contacts = (await groups.contacts(groupId, after)) ?? [];
  return sendPage(request, reply, {
    title: t.groupTitle(group.name),
    status,
    body: (
      <>
        <PageScripts />
        <Notice text={doneNotice(lang, query.done)} />
        <section aria-labelledby="rename-title">
          <h2 id="rename-title">{t.rename}</h2>
          <PostForm action={`/panel/groups/${group.id}/rename`} state={state}>
            <InputField
              id="new-name"
              name="name"
              label={t.newName}
              value={form.rename?.value ?? group.name}
              error={form.rename?.error}
              state={state}
              attributes={{ required: true, maxLength: 100 }}
            />
            <button type="submit">{t.rename}</button>
          </PostForm>
        </section>
        <section aria-labelledby="add-title">
          <h2 id="add-title">{t.addTitle}</h2>
          <ImportForm
            action={`/panel/groups/${group.id}/contacts`}
            state={state}
            id="add"
            label={t.numbers}
            help={t.numbersHelp}
            submit={t.add}
            numbers={form.add?.numbers ?? ''}
            csv={form.add?.csv ?? ''}
            error={form.add?.error}
            report={form.report}
          />
        </section>
        <Contacts request={request} group={group} contacts={contacts} />
        <section aria-labelledby="delete-title">
          <h2 id="delete-title">{t.remove}</h2>
          <p>{t.removeConfirm}</p>
          <RowAction action={`/panel/groups/${group.id}/delete`} state={state} label={t.remove} buttonClass="danger" />
        </section>
      </>
    ),
  });
}

type IdRequest = FastifyRequest<{ Params: { id: string } }>;

const groupIdOf = (request: IdRequest): number => idOf(request.params.id);

export function groupPageRoutes(app: FastifyInstance, door: AccountDoor): void {
  app.get<{ Params: { id: string } }>('/groups/:id', async (request, reply) =>
    groupPage(request, reply, door, groupIdOf(request)),
  );

  app.post<{ Params: { id: string } }>('/groups/:id/rename', async (request, reply) => {
    const id = groupIdOf(request);
    const name = field(request.body, 'name');
    const renamed = await door.of(request).groups.rename(id, name);
    if (renamed === null) throw new NotFound(`no group ${id}`);
    if (renamed.ok) return reply.redirect(`/panel/groups/${id}?done=renamed`, 303);
    const error = nameErrorText(request.panel.lang, renamed.error);
    return groupPage(request, reply, door, id, { rename: { value: name, error } }, 400);
  });

  app.post<{ Params: { id: string } }>('/groups/:id/delete', async (request, reply) => {
    const id = groupIdOf(request);
    if (!(await door.of(request).groups.remove(id))) throw new NotFound(`no group ${id}`);
    return reply.redirect('/panel/groups?done=deleted', 303);
  });

  app.post<{ Params: { id: string } }>(
    '/groups/:id/contacts',
    { bodyLimit: importBodyLimit },
    async (request, reply) => {
      const id = groupIdOf(request);
      const numbers = field(request.body, 'numbers');
      const csv = field(request.body, 'csv');
      const posted = postedEntries(numbers, csv);
      if (!posted.ok) {
        const error = csvErrorText(posted.error, request.panel.lang);
        return groupPage(request, reply, door, id, { add: { numbers, csv, error } }, 400);
      }
      const report = await door.of(request).groups.addContacts(id, posted.entries);
      if (report === null) throw new NotFound(`no group ${id}`);
      return groupPage(request, reply, door, id, { report });
    },
  );

  app.post<{ Params: { id: string } }>('/groups/:id/contacts/remove', async (request, reply) => {
    const id = groupIdOf(request);
    if (!(await door.of(request).groups.removeContact(id, field(request.body, 'number'))))
      throw new NotFound(`no contact in group ${id}`);
    return reply.redirect(`/panel/groups/${id}?done=removed`, 303);
  });

  app.get<{ Params: { id: string } }>('/groups/:id/export.csv', async (request, reply) => {
    const id = groupIdOf(request);
    const pages = await door.of(request).groups.exportContacts(id);
    if (!pages) throw new NotFound(`no group ${id}`);
    return sendCsv(reply, `group-${id}.csv`, ['number', 'name', 'added'], pages, (k) => ({
      number: k.number,
      name: k.name ?? '',
      added: new Date(k.createdAt).toISOString(),
    }));
  });
}
