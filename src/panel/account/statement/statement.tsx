/** The account's own monthly statement (docs/resellers.md, "Statements"), on a page and as CSV. */
import type { AccountArea } from '../door.js';
import { sendPage } from '../../layout.js';
import { queryOf } from '../../kit/forms.js';
import { StatementView, monthQuery, sendStatementCsv } from '../../kit/statement.js';
import { accountStatementMessages } from './catalogue.js';
import { found } from '../../kit/not-found.js';

export const statementArea: AccountArea = {
  name: 'statement',
  nav: [{ path: '/statement', label: (lang) => accountStatementMessages[lang].nav, order: 95 }],
  routes(app, door) {
    app.get('/statement', async (request, reply) => {
      const lang = request.panel.lang;
      const statement = await found(door.of(request).statement(monthQuery(queryOf(request.query).month)));
      return sendPage(request, reply, {
        title: accountStatementMessages[lang].title,
        body: (
          <StatementView lang={lang} action="/panel/statement" csv="/panel/statement/csv" statements={[statement]} />
        ),
      });
    });
    app.get('/statement/csv', async (request, reply) => {
      const statement = await found(door.of(request).statement(monthQuery(queryOf(request.query).month)));
      return sendStatementCsv(reply, `statement-${statement.account_id}-${statement.month}.csv`, [statement]);
    });
  },
};
