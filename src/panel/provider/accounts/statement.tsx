/**
 * The console's monthly statement of an account (docs/resellers.md, "Statements"): a
 * reseller's with each of its customers', as `admin account statement --customers`; and
 * its CSV.
 */
import type { FastifyInstance } from 'fastify';
import type { ProviderDoor } from '../door.js';
import { sendPage } from '../../layout.js';
import { idOf, queryOf } from '../../kit/forms.js';
import { StatementView, monthQuery, sendStatementCsv } from '../../kit/statement.js';
import { providerAccountMessages } from './catalogue.js';
import { found } from '../../kit/not-found.js';

type IdParams = { Params: { id: string } };

export function statementRoutes(app: FastifyInstance, door: ProviderDoor): void {
  app.get<IdParams>('/provider/accounts/:id/statement', async (request, reply) => {
    const id = idOf(request.params.id);
    const lang = request.panel.lang;
    const statement = await found(door.of(request).statement(id, monthQuery(queryOf(request.query).month)));
    const all = [statement, ...('customers' in statement ? statement.customers : [])];
    const base = `/panel/provider/accounts/${id}`;
    return sendPage(request, reply, {
      title: providerAccountMessages[lang].statementTitle(statement.name),
      body: <StatementView lang={lang} action={`${base}/statement`} csv={`${base}/statement/csv`} statements={all} />,
    });
  });
  app.get<IdParams>('/provider/accounts/:id/statement/csv', async (request, reply) => {
    const id = idOf(request.params.id);
    const statement = await found(door.of(request).statement(id, monthQuery(queryOf(request.query).month)));
    const all = [statement, ...('customers' in statement ? statement.customers : [])];
    return sendStatementCsv(reply, `statement-${id}-${statement.month}.csv`, all);
  });
}
