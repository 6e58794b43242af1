/** The account's own monthly statement (docs/resellers.md, "Statements"), on a page and as CSV. */
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { AccountArea, AccountDoor } from '../door.js';
import { pageArea } from '../../context.js';
import { sendPage } from '../../layout.js';
import { queryOf } from '../../kit/forms.js';
import { StatementView, monthQuery, sendStatementCsv } from '../../kit/statement.js';
import { accountStatementMessages } from './catalogue.js';
import { found } from '../../kit/not-found.js';

async function statementPage(request: FastifyRequest, reply: FastifyReply, door: AccountDoor): Promise<FastifyReply> {
  const lang = request.panel.lang;
  const statement = await found(door.of(request).statement(monthQuery(queryOf(request.query).month)));
  return sendPage(request, reply, {
    title: accountStatementMessages[lang].title,
    body: <StatementView lang={lang} action="/panel/statement" csv="/panel/statement/csv" statements={[statement]} />,
  });
}

export const statementArea: AccountArea = pageArea({
  name: 'statement',
  path: '/statement',
  messages: accountStatementMessages,
  order: 95,
  page: statementPage,
  routes(app, door) {
    app.get('/statement/csv', async (request, reply) => {
      const statement = await found(door.of(request).statement(monthQuery(queryOf(request.query).month)));
      return sendStatementCsv(reply, `statement-${statement.account_id}-${statement.month}.csv`, [statement]);
    });
  },
});
