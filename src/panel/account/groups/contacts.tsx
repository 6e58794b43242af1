/** A group's contacts: a page of them with a remove button each, the export link, and the next page. */
import type { FastifyRequest } from 'fastify';
import { removeNumberColumn } from '../remove-number.js';
import { Table } from '../../kit/table.js';
import { Pager } from '../../kit/pager.js';
import { dateTime } from '../../kit/format.js';
import { kitText } from '../../kit/text.js';
import { groupMessages } from './catalogue.js';
import type { ContactRow, GroupRow } from '../../../ports/panel-queries.js';
import { contactPageSize } from '../../../services/panel/account/groups.js';

export function Contacts(props: { request: FastifyRequest; group: GroupRow; contacts: ContactRow[] }) {
  const { group, contacts } = props;
  const state = props.request.panel;
  const lang = state.lang;
  const t = groupMessages[lang];
  const last = contacts[contacts.length - 1];
  return (
    <section aria-labelledby="contacts-title">
      <h2 id="contacts-title">
        {t.contacts} ({group.contacts})
      </h2>
      <p>
        <a href={`/panel/groups/${group.id}/export.csv`} download>
          {kitText[lang].exportCsv}
        </a>
      </p>
      <Table<ContactRow>
        rows={contacts}
        rowKey={(k) => k.number}
        empty={t.noContacts}
        columns={[
          { header: t.colNumber, rowHeader: true, cell: (k) => k.number },
          { header: t.colName, cell: (k) => k.name ?? '' },
          { header: t.colAdded, cell: (k) => dateTime(k.createdAt, lang, 'second') },
          removeNumberColumn(state, `/panel/groups/${group.id}/contacts/remove`, t.removeContact),
        ]}
      />
      <Pager
        lang={lang}
        label={t.contacts}
        next={last && contacts.length >= contactPageSize ? `/panel/groups/${group.id}?after=${last.number}` : null}
      />
    </section>
  );
}
