/** Groups and contacts: create, rename, delete, list; add contacts typed or from a CSV with a per-row report; export. */
import { queryOf } from '../forms.js';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { PanelArea, PanelDeps } from '../context.js';
import { accountIdOf } from '../context.js';
import { Csrf, FieldError, Notice, sendPage } from '../layout.js';
import type { Lang } from '../i18n/messages.js';
import { groupMessages } from '../i18n/groups.js';
import { dataCommon } from '../i18n/data-common.js';
import type { ImportReport, NameError } from '../../services/panel/panel-directory.js';
import {
  csvErrorText,
  dataOf,
  dateTime,
  field,
  idParam,
  importBodyLimit,
  notFound,
  postedEntries,
  sendCsv,
} from './data-shared.js';
import { CsvFields, DataScripts, ImportResult } from './data-components.js';
import { audited } from '../audit.js';

function nameErrorText(lang: Lang, e: NameError): string {
  const t = groupMessages[lang];
  return { required: t.errRequired, 'too-long': t.errTooLong, duplicate: t.errDuplicate }[e];
}

const notices = (lang: Lang): Record<string, string> => {
  const t = groupMessages[lang];
  return { created: t.created, renamed: t.renamed, deleted: t.deleted, removed: t.contactRemoved };
};

async function listPage(
  request: FastifyRequest,
  reply: FastifyReply,
  deps: PanelDeps,
  form: { name: string; error?: string },
  status = 200,
): Promise<FastifyReply> {
  const lang = request.panel.lang;
  const t = groupMessages[lang];
  const groups = await dataOf(deps).directory.listGroups(accountIdOf(request.panel));
  const done = queryOf(request.query).done;
  return sendPage(request, reply, {
    title: t.title,
    status,
    body: (
      <>
        <Notice text={done !== undefined ? notices(lang)[done] : undefined} />
        <form method="post" action="/panel/groups">
          <Csrf state={request.panel} />
          <label for="group-name">{t.groupName}</label>
          <input
            id="group-name"
            name="name"
            value={form.name}
            required
            maxLength={100}
            aria-invalid={form.error ? 'true' : undefined}
            aria-describedby={form.error ? 'group-name-error' : undefined}
          />
          <FieldError id="group-name-error" text={form.error} state={request.panel} />
          <button type="submit">{t.create}</button>
        </form>
        {groups.length === 0 ? (
          <p>{t.none}</p>
        ) : (
          <div class="table-wrap">
            <table>
              <thead>
                <tr>
                  <th scope="col">{t.colGroup}</th>
                  <th scope="col">{t.colContacts}</th>
                  <th scope="col">{t.colCreated}</th>
                </tr>
              </thead>
              <tbody>
                {groups.map((g) => (
                  <tr key={g.id}>
                    <th scope="row">
                      <a href={`/panel/groups/${g.id}`}>{g.name}</a>
                    </th>
                    <td>{g.contacts}</td>
                    <td>{dateTime(g.createdAt, lang)}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
      </>
    ),
  });
}

interface GroupForm {
  rename?: { value: string; error: string };
  add?: { numbers: string; csv: string; error?: string };
  report?: ImportReport;
}

async function groupPage(
  request: FastifyRequest,
  reply: FastifyReply,
  deps: PanelDeps,
  groupId: number,
  form: GroupForm = {},
  status = 200,
): Promise<FastifyReply> {
  const lang = request.panel.lang;
  const t = groupMessages[lang];
  const c = dataCommon[lang];
  const accountId = accountIdOf(request.panel);
  const directory = dataOf(deps).directory;
  const group = await directory.group(accountId, groupId);
  if (!group) return notFound();
  const after = queryOf(request.query).after;
  const contacts =
    (await directory.contacts(
      accountId,
      groupId,
      typeof after === 'string' && /^\d{1,15}$/.test(after) ? after : null,
    )) ?? [];
  const last = contacts[contacts.length - 1];
  const done = queryOf(request.query).done;
  return sendPage(request, reply, {
    title: t.groupTitle(group.name),
    status,
    body: (
      <>
        <DataScripts />
        <Notice text={done !== undefined ? notices(lang)[done] : undefined} />
        <section aria-labelledby="rename-title">
          <h2 id="rename-title">{t.rename}</h2>
          <form method="post" action={`/panel/groups/${group.id}/rename`}>
            <Csrf state={request.panel} />
            <label for="new-name">{t.newName}</label>
            <input
              id="new-name"
              name="name"
              value={form.rename?.value ?? group.name}
              required
              maxLength={100}
              aria-invalid={form.rename ? 'true' : undefined}
              aria-describedby={form.rename ? 'new-name-error' : undefined}
            />
            <FieldError id="new-name-error" text={form.rename?.error} state={request.panel} />
            <button type="submit">{t.rename}</button>
          </form>
        </section>
        <section aria-labelledby="add-title">
          <h2 id="add-title">{t.addTitle}</h2>
          <form method="post" action={`/panel/groups/${group.id}/contacts`}>
            <Csrf state={request.panel} />
            <label for="add-numbers">{t.numbers}</label>
            <textarea
              id="add-numbers"
              name="numbers"
              rows={3}
              aria-describedby={form.add?.error ? 'add-numbers-help add-error' : 'add-numbers-help'}
            >
              {form.add?.numbers ?? ''}
            </textarea>
            <p class="help" id="add-numbers-help">
              {t.numbersHelp}
            </p>
            <CsvFields lang={lang} id="add-csv" value={form.add?.csv ?? ''} />
            <FieldError id="add-error" text={form.add?.error} state={request.panel} />
            <button type="submit">{t.add}</button>
          </form>
          <ImportResult lang={lang} report={form.report ?? null} />
        </section>
        <section aria-labelledby="contacts-title">
          <h2 id="contacts-title">
            {t.contacts} ({group.contacts})
          </h2>
          <p>
            <a href={`/panel/groups/${group.id}/export.csv`} download>
              {c.exportCsv}
            </a>
          </p>
          {contacts.length === 0 ? (
            <p>{t.noContacts}</p>
          ) : (
            <div class="table-wrap">
              <table>
                <thead>
                  <tr>
                    <th scope="col">{t.colNumber}</th>
                    <th scope="col">{t.colName}</th>
                    <th scope="col">{t.colAdded}</th>
                    <th scope="col">
                      <span class="visually-hidden">{t.removeContact('')}</span>
                    </th>
                  </tr>
                </thead>
                <tbody>
                  {contacts.map((k) => (
                    <tr key={k.number}>
                      <th scope="row">{k.number}</th>
                      <td>{k.name ?? ''}</td>
                      <td>{dateTime(k.createdAt, lang)}</td>
                      <td>
                        <form method="post" action={`/panel/groups/${group.id}/contacts/remove`}>
                          <Csrf state={request.panel} />
                          <input type="hidden" name="number" value={k.number} />
                          <button type="submit" aria-label={t.removeContact(k.number)}>
                            {t.removeContact(k.number)}
                          </button>
                        </form>
                      </td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
          )}
          {last && contacts.length >= 100 && (
            <nav aria-label={t.contacts} class="pager">
              <a href={`/panel/groups/${group.id}?after=${last.number}`} rel="next">
                {c.nextPage}
              </a>
            </nav>
          )}
        </section>
        <section aria-labelledby="delete-title">
          <h2 id="delete-title">{t.remove}</h2>
          <p>{t.removeConfirm}</p>
          <form method="post" action={`/panel/groups/${group.id}/delete`}>
            <Csrf state={request.panel} />
            <button type="submit" class="danger">
              {t.remove}
            </button>
          </form>
        </section>
      </>
    ),
  });
}

type IdRequest = FastifyRequest<{ Params: { id: string } }>;

function groupIdOf(request: IdRequest): number {
  return idParam(request.params.id) ?? notFound();
}

export const groupsArea: PanelArea = {
  name: 'groups',
  nav: [{ path: '/groups', label: (lang) => groupMessages[lang].nav, order: 50, for: 'account' }],
  routes(app, deps) {
    app.get('/groups', async (request, reply) => listPage(request, reply, deps, { name: '' }));

    app.post('/groups', async (request, reply) => {
      const name = field(request.body, 'name');
      const created = await dataOf(deps).directory.createGroup(accountIdOf(request.panel), name);
      if (created.ok) {
        await audited(request, deps, {
          action: 'group.create',
          object: { type: 'group', id: created.id },
          detail: { name },
        });
        return reply.redirect(`/panel/groups/${created.id}?done=created`, 303);
      }
      return listPage(request, reply, deps, { name, error: nameErrorText(request.panel.lang, created.error) }, 400);
    });

    app.get<{ Params: { id: string } }>('/groups/:id', async (request, reply) =>
      groupPage(request, reply, deps, groupIdOf(request)),
    );

    app.post<{ Params: { id: string } }>('/groups/:id/rename', async (request, reply) => {
      const id = groupIdOf(request);
      const name = field(request.body, 'name');
      const renamed = await dataOf(deps).directory.renameGroup(accountIdOf(request.panel), id, name);
      if (renamed === null) return notFound();
      if (renamed.ok) {
        await audited(request, deps, { action: 'group.rename', object: { type: 'group', id }, detail: { name } });
        return reply.redirect(`/panel/groups/${id}?done=renamed`, 303);
      }
      return groupPage(
        request,
        reply,
        deps,
        id,
        { rename: { value: name, error: nameErrorText(request.panel.lang, renamed.error) } },
        400,
      );
    });

    app.post<{ Params: { id: string } }>('/groups/:id/delete', async (request, reply) => {
      if (!(await dataOf(deps).directory.deleteGroup(accountIdOf(request.panel), groupIdOf(request))))
        return notFound();
      await audited(request, deps, { action: 'group.delete', object: { type: 'group', id: groupIdOf(request) } });
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
        if (!posted.ok)
          return groupPage(
            request,
            reply,
            deps,
            id,
            { add: { numbers, csv, error: csvErrorText(posted.error, request.panel.lang) } },
            400,
          );
        const report = await dataOf(deps).directory.addContacts(accountIdOf(request.panel), id, posted.entries);
        if (report === null) return notFound();
        await audited(request, deps, {
          action: 'contact.add',
          object: { type: 'group', id },
          detail: { entries: posted.entries.length },
        });
        return groupPage(request, reply, deps, id, { report });
      },
    );

    app.post<{ Params: { id: string } }>('/groups/:id/contacts/remove', async (request, reply) => {
      const id = groupIdOf(request);
      if (!(await dataOf(deps).directory.removeContact(accountIdOf(request.panel), id, field(request.body, 'number'))))
        return notFound();
      await audited(request, deps, {
        action: 'contact.remove',
        object: { type: 'group', id },
        detail: { number: field(request.body, 'number') },
      });
      return reply.redirect(`/panel/groups/${id}?done=removed`, 303);
    });

    app.get<{ Params: { id: string } }>('/groups/:id/export.csv', async (request, reply) => {
      const id = groupIdOf(request);
      const pages = await dataOf(deps).directory.exportContacts(accountIdOf(request.panel), id);
      if (!pages) return notFound();
      const columns = [
        { key: 'number', header: 'number' },
        { key: 'name', header: 'name' },
        { key: 'added', header: 'added' },
      ];
      return sendCsv(reply, `group-${id}.csv`, columns, pages, (k) => ({
        number: k.number,
        name: k.name ?? '',
        added: new Date(k.createdAt).toISOString(),
      }));
    });
  },
};
