/**
 * The reseller's monthly statement with each of its customers' (docs/resellers.md,
 * "Statements"): the figures of `admin account statement --customers`, and their CSV.
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { ResellerArea, ResellerDoor } from '../door.js';
import { pageArea } from '../../context.js';
import { sendPage } from '../../layout.js';
import { queryOf } from '../../kit/forms.js';
import { StatementView, monthQuery, sendStatementCsv } from '../../kit/statement.js';
import { resellerStatementMessages } from './catalogue.js';
import { found } from '../../kit/not-found.js';

async function statementPage(request: FastifyRequest, reply: FastifyReply, door: ResellerDoor): Promise<FastifyReply> {
  const lang = request.panel.lang;
  const t = resellerStatementMessages[lang];
  const statement = await found(door.of(request).statement(monthQuery(queryOf(request.query).month)));
  return sendPage(request, reply, {
    title: t.title,
    body: (
      <>
        <p>{t.intro}</p>
        <StatementView
          lang={lang}
          action="/panel/reseller/statement"
          csv="/panel/reseller/statement/csv"
          statements={[statement, ...statement.customers]}
        />
      </>
    ),
  });
}

export const resellerStatementArea: ResellerArea = pageArea({
  name: 'reseller-statement',
  path: '/reseller/statement',
  messages: resellerStatementMessages,
  order: 220,
  page: statementPage,
  routes(app, door) {
    app.get('/reseller/statement/csv', async (request, reply) => {
      const statement = await found(door.of(request).statement(monthQuery(queryOf(request.query).month)));
      return sendStatementCsv(reply, `statement-${statement.account_id}-${statement.month}-customers.csv`, [
        statement,
        ...statement.customers,
      ]);
    });
  },
});
