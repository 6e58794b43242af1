/**
 * The provider console's page of one account (issue 22): its facts, users and balance
 * ledger, and its actions: suspend and reactivate, top up, debit with a reason. Every change
 * goes through ProviderConsole, which writes the audit row in the same transaction.
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { PanelArea, PanelDeps } from '../context.js';
import { providerOnly } from '../context.js';
import { Csrf, Notice, TextField, sendPage } from '../layout.js';
import { providerAccountMessages } from '../i18n/provider-accounts.js';
import { formOf, text, ticked, queryOf } from '../forms.js';
import { dateTime, idOf } from './key-format.js';
import type { IdParams } from './key-format.js';
import { actorOf } from '../audit.js';
import { cursor } from './provider-accounts.js';
import { AdminError } from '../../services/admin-error.js';
import { NotFoundForAccount } from '../../services/account-panel.js';

/** A whole number above zero (amounts), or null. */
function amountOf(raw: string): number | null {
  const v = raw.trim();
  return /^\d{1,12}$/.test(v) && Number(v) > 0 ? Number(v) : null;
}

const iso = (ms: number): string => new Date(ms).toISOString();

interface AccountErrors {
  topup?: string;
  debitAmount?: string;
  debitReason?: string;
  values?: { topup?: string; debitAmount?: string; debitReason?: string };
}

async function accountPage(
  request: FastifyRequest,
  reply: FastifyReply,
  deps: PanelDeps,
  id: number,
  errors: AccountErrors = {},
): Promise<FastifyReply> {
  const state = request.panel;
  const lang = state.lang;
  const t = providerAccountMessages[lang];
  const query = queryOf(request.query);
  const { account, users } = await accountOr404(deps, id);
  const ledger = await deps.account.console.ledger(id, cursor(query.before));
  const notices: Record<string, string> = {
    created: t.doneCreated,
    suspended: t.doneSuspended,
    reactivated: t.doneReactivated,
    topup: t.doneTopup,
    debit: t.doneDebit,
  };
  const done = query.done === undefined ? undefined : notices[query.done];
  const failed = errors.topup !== undefined || errors.debitAmount !== undefined || errors.debitReason !== undefined;
  const base = `/panel/provider/accounts/${id}`;
  return sendPage(request, reply, {
    title: t.accountTitle(account.name),
    status: failed ? 400 : 200,
    body: (
      <>
        <Notice text={done} />
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
        <p>
          <a href={`/panel/provider/audit?account=${id}`}>{t.auditLink}</a>
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

        <h2>{t.suspendHeading}</h2>
        <form method="post" action={`${base}/${account.status === 'Active' ? 'suspend' : 'reactivate'}`} class="stack">
          <Csrf state={state} />
          <p class="muted">{t.suspendText}</p>
          <div>
            <button type="submit" class={account.status === 'Active' ? 'danger' : undefined}>
              {account.status === 'Active' ? t.suspend : t.reactivate}
            </button>
          </div>
        </form>

        <h2 id="topup-heading">{t.topupHeading}</h2>
        <form method="post" action={`${base}/topup`} class="stack" aria-labelledby="topup-heading">
          <Csrf state={state} />
          <TextField
            id="topup-amount"
            name="amount"
            label={t.topupAmount}
            numeric
            value={errors.values?.topup ?? ''}
            error={errors.topup}
            state={state}
          />
          <div>
            <input id="topup-international" name="international" type="checkbox" value="1" />
            <label for="topup-international">{t.topupInternational}</label>
          </div>
          <div>
            <button type="submit">{t.topup}</button>
          </div>
        </form>

        <h2 id="debit-heading">{t.debitHeading}</h2>
        <form method="post" action={`${base}/debit`} class="stack" aria-labelledby="debit-heading">
          <Csrf state={state} />
          <TextField
            id="debit-amount"
            name="amount"
            label={t.debitAmount}
            numeric
            value={errors.values?.debitAmount ?? ''}
            error={errors.debitAmount}
            state={state}
          />
          <TextField
            id="debit-reason"
            name="reason"
            label={t.debitReason}
            maxLength={500}
            value={errors.values?.debitReason ?? ''}
            error={errors.debitReason}
            state={state}
          />
          <div>
            <input id="debit-international" name="international" type="checkbox" value="1" />
            <label for="debit-international">{t.debitInternational}</label>
          </div>
          <div>
            <button type="submit">{t.debit}</button>
          </div>
        </form>

        <h2 id="ledger">{t.ledgerHeading}</h2>
        {ledger.items.length === 0 ? (
          <p>{t.ledgerNone}</p>
        ) : (
          <div class="table-wrap">
            <table>
              <thead>
                <tr>
                  <th scope="col">{t.colWhen}</th>
                  <th scope="col">{t.colBucket}</th>
                  <th scope="col">{t.colDelta}</th>
                  <th scope="col">{t.colAfter}</th>
                  <th scope="col">{t.colReason}</th>
                  <th scope="col">{t.colReference}</th>
                </tr>
              </thead>
              <tbody>
                {ledger.items.map((e) => (
                  <tr key={e.id}>
                    <td>{dateTime(iso(e.createdAt), lang)}</td>
                    <td>{e.bucket === 'main' ? t.bucketMain : t.bucketInternational}</td>
                    <td>{e.delta > 0 ? `+${e.delta}` : String(e.delta)}</td>
                    <td>{e.balanceAfter}</td>
                    <td>{e.reason}</td>
                    <td>{e.reference ?? ''}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
        {ledger.next !== null && (
          <p>
            <a href={`${base}?before=${ledger.next}#ledger`}>{t.olderEntries}</a>
          </p>
        )}
      </>
    ),
  });
}

/** An account with its users, or "not found" (404) when there is none. */
async function accountOr404(deps: PanelDeps, id: number): ReturnType<PanelDeps['account']['console']['account']> {
  try {
    return await deps.account.console.account(id);
  } catch (error) {
    if (error instanceof AdminError) throw new NotFoundForAccount(`no account ${id}`);
    throw error;
  }
}

/** The account id of an action's route, once the account is known to exist. */
async function existing(deps: PanelDeps, raw: string): Promise<number> {
  const id = idOf(raw);
  await accountOr404(deps, id);
  return id;
}

export const providerAccountArea: PanelArea = {
  name: 'provider-account',
  routes(app, deps) {
    app.get<IdParams>('/provider/accounts/:id', providerOnly, async (request, reply) =>
      accountPage(request, reply, deps, idOf(request.params.id)),
    );

    for (const [verb, status, done] of [
      ['suspend', 'Suspended', 'suspended'],
      ['reactivate', 'Active', 'reactivated'],
    ] as const) {
      app.post<IdParams>(`/provider/accounts/:id/${verb}`, providerOnly, async (request, reply) => {
        const id = await existing(deps, request.params.id);
        await deps.account.console.setStatus(actorOf(request), id, status);
        return reply.redirect(`/panel/provider/accounts/${id}?done=${done}`, 303);
      });
    }

    app.post<IdParams>('/provider/accounts/:id/topup', providerOnly, async (request, reply) => {
      const t = providerAccountMessages[request.panel.lang];
      const id = await existing(deps, request.params.id);
      const form = formOf(request.body);
      const raw = text(form, 'amount');
      const amount = amountOf(raw);
      if (amount === null) return accountPage(request, reply, deps, id, { topup: t.errAmount, values: { topup: raw } });
      await deps.account.console.topup(actorOf(request), id, amount, ticked(form, 'international'));
      return reply.redirect(`/panel/provider/accounts/${id}?done=topup`, 303);
    });

    app.post<IdParams>('/provider/accounts/:id/debit', providerOnly, async (request, reply) => {
      const t = providerAccountMessages[request.panel.lang];
      const id = await existing(deps, request.params.id);
      const form = formOf(request.body);
      const raw = text(form, 'amount');
      const reason = text(form, 'reason').trim().slice(0, 500);
      const amount = amountOf(raw);
      const values = { debitAmount: raw, debitReason: reason };
      if (amount === null || reason === '')
        return accountPage(request, reply, deps, id, {
          ...(amount === null ? { debitAmount: t.errAmount } : {}),
          ...(reason === '' ? { debitReason: t.errReason } : {}),
          values,
        });
      try {
        await deps.account.console.debit(actorOf(request), id, amount, ticked(form, 'international'), reason);
      } catch (error) {
        if (!(error instanceof AdminError)) throw error;
        // The only refusal left once the fields are right: the balance does not cover the amount.
        return accountPage(request, reply, deps, id, { debitAmount: t.errInsufficient, values });
      }
      return reply.redirect(`/panel/provider/accounts/${id}?done=debit`, 303);
    });
  },
};
