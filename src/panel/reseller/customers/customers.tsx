/**
 * The reseller's customers: the list with balances and this month's traffic, and each
 * customer's page (customer-page.tsx) with its actions. Only the reseller's own customers:
 * the desk answers another account's id as not found.
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { ResellerArea, ResellerDoor } from '../door.js';
import { pageArea } from '../../context.js';
import { sendPage } from '../../layout.js';
import { Table } from '../../kit/table.js';
import { Pager } from '../../kit/pager.js';
import { cursorOf, queryOf } from '../../kit/forms.js';
import { resellerCustomerMessages } from './catalogue.js';
import { customerPageRoutes } from './customer-page.js';
import type { CustomerRow } from '../../../services/panel/reseller/reseller-panel.js';

async function customersPage(request: FastifyRequest, reply: FastifyReply, door: ResellerDoor): Promise<FastifyReply> {
  const lang = request.panel.lang;
  const t = resellerCustomerMessages[lang];
  const desk = door.of(request);
  const query = queryOf(request.query);
  const page = await desk.customers(cursorOf(query.after));
  return sendPage(request, reply, {
    title: t.title,
    body: (
      <>
        <p>{t.intro(desk.thisMonth())}</p>
        <Table<CustomerRow>
          rows={page.items}
          rowKey={(c) => c.account_id}
          empty={t.none}
          cards
          columns={[
            {
              header: t.colName,
              rowHeader: true,
              cell: (c) => <a href={`/panel/reseller/customers/${c.account_id}`}>{c.name}</a>,
            },
            { header: t.colStatus, class: 'state', cell: (c) => (c.status === 'Active' ? t.active : t.suspended) },
            { header: t.colMain, cell: (c) => c.balance_main },
            { header: t.colInternational, cell: (c) => c.balance_international },
            { header: t.colMessages, cell: (c) => c.month.messages },
            { header: t.colSms, cell: (c) => c.month.sms },
            { header: t.colDelivered, cell: (c) => c.month.delivered },
            { header: t.colFailed, cell: (c) => c.month.failed },
          ]}
        />
        <Pager
          lang={lang}
          label={t.listLabel}
          next={page.next === null ? null : `/panel/reseller/customers?after=${page.next}`}
          first={query.after === undefined ? null : '/panel/reseller/customers'}
        />
      </>
    ),
  });
}

export const resellerCustomersArea: ResellerArea = pageArea({
  name: 'reseller-customers',
  path: '/reseller/customers',
  messages: resellerCustomerMessages,
  order: 200,
  page: customersPage,
  routes(app, door) {
    customerPageRoutes(app, door);
  },
});
