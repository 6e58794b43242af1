/**
 * The provider console's page of one account: its facts, users and balance ledger, and its
 * actions: suspend and reactivate, top up, debit with a reason. Every change goes through
 * ProviderConsole, which writes the audit row in the same transaction.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { ProviderDoor } from '../door.js';
import { sendPage } from '../../layout.js';
import { Notice } from '../../kit/fields.js';
import { StatusSection, statusRoutes } from '../../kit/account-status.js';
import { Table } from '../../kit/table.js';
import { Pager } from '../../kit/pager.js';
import { cursorOf, field, idOf, queryOf, ticked } from '../../kit/forms.js';
import { dateTime } from '../../kit/format.js';
import { providerAccountMessages } from './catalogue.js';
import { MoveForm } from './move-form.js';
import type { AccountErrors } from './move-form.js';
import type { AccountView } from '../../../services/admin.js';
import type { LedgerEntry } from '../../../ports/console-queries.js';
import { found, orRefused } from '../../kit/not-found.js';

type IdParams = { Params: { id: string } };

/** A whole number above zero (amounts), or null. */
function amountOf(raw: string): number | null {
  const v = raw.trim();
  return /^\d{1,12}$/.test(v) && Number(v) > 0 ? Number(v) : null;
}

function Facts(props: { request: FastifyRequest; account: AccountView }) {
  const { account } = props;
  const lang = props.request.panel.lang;
  const t = providerAccountMessages[lang];
  return (
    <dl class="facts">
      <dt>{t.number}</dt>
      <dd>{account.id}</dd>
      <dt>{t.name}</dt>
      <dd>{account.name}</dd>
      <dt>{t.status}</dt>
      <dd class="state">{account.status === 'Active' ? t.active : t.suspended}</dd>
      <dt>{t.main}</dt>
      <dd>{account.balance_main}</dd>
      <dt>{t.international}</dt>
      <dd>{account.balance_international}</dd>
      <dt>{t.created}</dt>
      <dd>{dateTime(account.created_at, lang)}</dd>
    </dl>
  );
}

async function accountPage(
  request: FastifyRequest,
  reply: FastifyReply,
  door: ProviderDoor,
  id: number,
  errors: AccountErrors = {},
): Promise<FastifyReply> {
  const state = request.panel;
  const lang = state.lang;
  const t = providerAccountMessages[lang];
  const query = queryOf(request.query);
  const console = door.of(request).console;
  const { account, users } = await found(console.account(id));
  const ledger = await console.ledger(id, cursorOf(query.before));
  const notices: Record<string, string> = {
    created: t.doneCreated,
    suspended: t.doneSuspended,
    reactivated: t.doneReactivated,
    topup: t.doneTopup,
    debit: t.doneDebit,
  };
  const failed = errors.topup !== undefined || errors.debitAmount !== undefined || errors.debitReason !== undefined;
  const base = `/panel/provider/accounts/${id}`;
  return sendPage(request, reply, {
    title: t.accountTitle(account.name),
    status: failed ? 400 : 200,
    body: (
      <>
        <Notice text={query.done === undefined ? undefined : notices[query.done]} />
        <Facts request={request} account={account} />
        <p>
          <a href={`/panel/provider/audit?account=${id}`}>{t.auditLink}</a>
        </p>
        <p>
          <a href={`${base}/statement`}>{account.reseller === true ? t.resellerStatementLink : t.statementLink}</a>
        </p>

        <h2>{t.users}</h2>
        {users.length === 0 ? (
          <p>{t.noUsers}</p>
        ) : (
          <ul>
            {users.map((u) => (
              <li key={u.id}>{u.email}</li>
            ))}
          </ul>
        )}

        <StatusSection
          state={state}
          base={base}
          active={account.status === 'Active'}
          texts={{ heading: t.suspendHeading, text: t.suspendText, suspend: t.suspend, reactivate: t.reactivate }}
        />

        <MoveForm request={request} base={base} move="topup" errors={errors} />
        <MoveForm request={request} base={base} move="debit" errors={errors} />

        <h2 id="ledger">{t.ledgerHeading}</h2>
        <Table<LedgerEntry>
          rows={ledger.items}
          rowKey={(e) => e.id}
          empty={t.ledgerNone}
          columns={[
            { header: t.colWhen, cell: (e) => dateTime(e.createdAt, lang) },
            { header: t.colBucket, cell: (e) => (e.bucket === 'main' ? t.bucketMain : t.bucketInternational) },
            { header: t.colDelta, cell: (e) => (e.delta > 0 ? `+${e.delta}` : String(e.delta)) },
            { header: t.colAfter, cell: (e) => e.balanceAfter },
            { header: t.colReason, cell: (e) => e.reason },
            { header: t.colReference, cell: (e) => e.reference ?? '' },
          ]}
        />
        <Pager
          lang={lang}
          label={t.ledgerHeading}
          next={ledger.next === null ? null : `${base}?before=${ledger.next}#ledger`}
          nextText={t.olderEntries}
        />
      </>
    ),
  });
}

export function accountPageRoutes(app: FastifyInstance, door: ProviderDoor): void {
  app.get<IdParams>('/provider/accounts/:id', async (request, reply) =>
    accountPage(request, reply, door, idOf(request.params.id)),
  );

  statusRoutes(app, '/provider/accounts', (request, id, status) =>
    found(door.of(request).console.setStatus(id, status)),
  );

  app.post<IdParams>('/provider/accounts/:id/topup', async (request, reply) => {
    const t = providerAccountMessages[request.panel.lang];
    const id = idOf(request.params.id);
    const raw = field(request.body, 'amount');
    const amount = amountOf(raw);
    if (amount === null) return accountPage(request, reply, door, id, { topup: t.errAmount, values: { topup: raw } });
    await found(door.of(request).console.topup(id, amount, ticked(request.body, 'international')));
    return reply.redirect(`/panel/provider/accounts/${id}?done=topup`, 303);
  });

  app.post<IdParams>('/provider/accounts/:id/debit', async (request, reply) => {
    const t = providerAccountMessages[request.panel.lang];
    const id = idOf(request.params.id);
    const raw = field(request.body, 'amount');
    const reason = field(request.body, 'reason').trim().slice(0, 500);
    const amount = amountOf(raw);
    const values = { debitAmount: raw, debitReason: reason };
    if (amount === null || reason === '')
      return accountPage(request, reply, door, id, {
        ...(amount === null ? { debitAmount: t.errAmount } : {}),
        ...(reason === '' ? { debitReason: t.errReason } : {}),
        values,
      });
    const debited = await orRefused(
      door.of(request).console.debit(id, amount, ticked(request.body, 'international'), reason),
    );
    // The only refusal left once the fields are right: the balance does not cover the amount.
    if (!debited.ok) return accountPage(request, reply, door, id, { debitAmount: t.errInsufficient, values });
    return reply.redirect(`/panel/provider/accounts/${id}?done=debit`, 303);
  });
}
