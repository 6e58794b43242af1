/**
 * One customer of the reseller: its facts and this month's traffic, its sender IDs, and the
 * reseller's actions: give or take back credit (reviewed on a confirmation page with both
 * balances before and after, then moved as /subaccounts/fund moves it), suspend and
 * reactivate, the refund policy. Every change is the desk's, which writes the audit row.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Lang } from '../../catalogue.js';
import type { ResellerDoor } from '../door.js';
import { sendPage } from '../../layout.js';
import { kitText } from '../../kit/text.js';
import { Notice } from '../../kit/fields.js';
import { AmountField } from '../../kit/amount-field.js';
import { PostForm } from '../../kit/post-form.js';
import { StatusSection, statusRoutes } from '../../kit/account-status.js';
import { Choice, SubmitRow } from '../../kit/form-rows.js';
import { Table } from '../../kit/table.js';
import { field, idOf, queryOf, ticked } from '../../kit/forms.js';
import { resellerCustomerMessages } from './catalogue.js';
import { maxMoveAmount } from '../../../services/panel/reseller/reseller-panel.js';
import type { SenderIdView } from '../../../services/sender-id-admin.js';
import { found } from '../../kit/not-found.js';

type IdParams = { Params: { id: string } };

/** The direction field's values: give credit, or take unused credit back. */
const give = 'give';
const take = 'take';

interface FundErrors {
  amount?: string;
  values?: { amount: string; take: boolean; international: boolean };
}

/** Why a move was refused for want of credit, by its direction. */
function shortOf(amount: number, lang: Lang): string {
  const t = resellerCustomerMessages[lang];
  return amount < 0 ? t.errInsufficientTake : t.errInsufficientGive;
}

/** The move a form asks for: a signed amount (negative takes back) and the balance, or null. */
function moveOf(body: unknown): { amount: number; international: boolean } | null {
  const raw = field(body, 'amount').trim();
  if (!/^\d{1,13}$/.test(raw)) return null;
  const amount = Number(raw);
  if (amount < 1 || amount > maxMoveAmount) return null;
  return {
    amount: field(body, 'direction') === 'take' ? -amount : amount,
    international: ticked(body, 'international'),
  };
}

async function customerPage(
  request: FastifyRequest,
  reply: FastifyReply,
  door: ResellerDoor,
  id: number,
  errors: FundErrors = {},
): Promise<FastifyReply> {
  const state = request.panel;
  const t = resellerCustomerMessages[state.lang];
  const desk = door.of(request);
  const customer = await found(desk.customer(id));
  const own = await found(desk.own());
  const done = queryOf(request.query).done;
  const notices: Record<string, string> = {
    funded: t.doneFunded,
    suspended: t.doneSuspended,
    reactivated: t.doneReactivated,
    policy: t.donePolicy,
  };
  const base = `/panel/reseller/customers/${id}`;
  const active = customer.status === 'Active';
  const senderState = {
    approved: t.stateApproved,
    pending: t.statePending,
    rejected: t.stateRejected,
    'awaiting-reseller': t.stateAwaiting,
  };
  const taking = errors.values?.take === true;
  return sendPage(request, reply, {
    title: t.customerTitle(customer.name),
    status: errors.amount === undefined ? 200 : 400,
    body: (
      <>
        <Notice text={done === undefined ? undefined : notices[done]} />
        <dl class="facts">
          <dt>{t.number}</dt>
          <dd>{customer.account_id}</dd>
          <dt>{t.colStatus}</dt>
          <dd class="state">{active ? t.active : t.suspended}</dd>
          <dt>{t.colMain}</dt>
          <dd id="customer-main">{customer.balance_main}</dd>
          <dt>{t.colInternational}</dt>
          <dd id="customer-international">{customer.balance_international}</dd>
          <dt>{t.yourMain}</dt>
          <dd id="reseller-main">{own.balanceMain}</dd>
          <dt>{t.yourInternational}</dt>
          <dd id="reseller-international">{own.balanceInternational}</dd>
        </dl>

        <h2>{t.monthHeading}</h2>
        <dl class="facts">
          <dt>{t.colMessages}</dt>
          <dd>{customer.month.messages}</dd>
          <dt>{t.colSms}</dt>
          <dd>{customer.month.sms}</dd>
          <dt>{t.colDelivered}</dt>
          <dd>{customer.month.delivered}</dd>
          <dt>{t.colFailed}</dt>
          <dd>{customer.month.failed}</dd>
        </dl>

        <h2 id="fund-heading">{t.fundHeading}</h2>
        <p class="muted">{t.fundText}</p>
        <PostForm action={`${base}/fund/review`} state={state} class="stack" labelledBy="fund-heading">
          <fieldset>
            <legend>{t.direction}</legend>
            <Choice id="fund-give" name="direction" type="radio" value={give} checked={!taking} label={t.give} />
            <Choice id="fund-take" name="direction" type="radio" value={take} checked={taking} label={t.takeBack} />
          </fieldset>
          <AmountField
            id="fund-amount"
            label={t.amount}
            value={errors.values?.amount}
            error={errors.amount}
            state={state}
            maxLength={13}
          />
          <Choice
            id="fund-international"
            name="international"
            checked={errors.values?.international === true}
            label={t.international}
          />
          <SubmitRow label={t.review} />
        </PostForm>

        <StatusSection
          state={state}
          base={base}
          active={active}
          texts={{ heading: t.statusHeading, text: t.statusText, suspend: t.suspend, reactivate: t.reactivate }}
        />

        <h2 id="policy-heading">{t.policyHeading}</h2>
        <p class="muted">{t.policyText}</p>
        <PostForm action={`${base}/refund-policy`} state={state} class="stack" labelledBy="policy-heading">
          <Choice id="refund-on" name="refund" checked={customer.refund_undelivered} label={t.policyOn} />
          <SubmitRow label={t.save} />
        </PostForm>

        <h2>{t.sendersHeading}</h2>
        <Table<SenderIdView>
          rows={customer.sender_ids}
          rowKey={(s) => s.id}
          empty={t.sendersNone}
          columns={[
            { header: t.colTitle, rowHeader: true, cell: (s) => s.title },
            { header: t.colStatus, class: 'state', cell: (s) => senderState[s.status] },
          ]}
        />
        {customer.sender_ids.some((s) => s.status === 'awaiting-reseller') && (
          <p>
            <a href="/panel/reseller/sender-ids">{t.reviewLink}</a>
          </p>
        )}
        <p>
          <a href="/panel/reseller/customers">{t.back}</a>
        </p>
      </>
    ),
  });
}

/** The confirmation: what moves, both balances before and after, and the button that moves it. */
async function reviewPage(
  request: FastifyRequest,
  reply: FastifyReply,
  door: ResellerDoor,
  id: number,
  move: { amount: number; international: boolean },
): Promise<FastifyReply> {
  const state = request.panel;
  const t = resellerCustomerMessages[state.lang];
  const preview = await found(door.of(request).preview(id, move.amount, move.international));
  const values = { amount: String(Math.abs(move.amount)), take: move.amount < 0, international: move.international };
  if (preview.insufficient)
    return customerPage(request, reply, door, id, {
      amount: shortOf(move.amount, state.lang),
      values,
    });
  const bucket = move.international ? t.bucketInternational : t.bucketMain;
  const what = move.amount < 0 ? t.confirmTake(-move.amount, bucket) : t.confirmGive(move.amount, bucket);
  const base = `/panel/reseller/customers/${id}`;
  const rows = [
    { who: t.yours, ...preview.reseller },
    { who: t.theirs, ...preview.customer },
  ];
  return sendPage(request, reply, {
    title: t.confirmTitle,
    body: (
      <>
        <p>{what}</p>
        <Table<(typeof rows)[number]>
          rows={rows}
          rowKey={(r) => r.who}
          columns={[
            { header: t.colWho, rowHeader: true, cell: (r) => r.who },
            { header: t.colBefore, cell: (r) => r.before },
            { header: t.colAfter, cell: (r) => r.after },
          ]}
        />
        <PostForm action={`${base}/fund`} state={state} class="stack">
          <input type="hidden" name="amount" value={values.amount} />
          <input type="hidden" name="direction" value={values.take ? take : give} />
          {move.international && <input type="hidden" name="international" value="1" />}
          <div class="actions">
            <button type="submit">{t.confirm}</button>
            <a href={base}>{kitText[state.lang].cancel}</a>
          </div>
        </PostForm>
      </>
    ),
  });
}

export function customerPageRoutes(app: FastifyInstance, door: ResellerDoor): void {
  app.get<IdParams>('/reseller/customers/:id', async (request, reply) =>
    customerPage(request, reply, door, idOf(request.params.id)),
  );

  app.post<IdParams>('/reseller/customers/:id/fund/review', async (request, reply) => {
    const t = resellerCustomerMessages[request.panel.lang];
    const id = idOf(request.params.id);
    const move = moveOf(request.body);
    if (move === null)
      return customerPage(request, reply, door, id, {
        amount: t.errAmount,
        values: {
          amount: field(request.body, 'amount').slice(0, 13),
          take: field(request.body, 'direction') === take,
          international: ticked(request.body, 'international'),
        },
      });
    return reviewPage(request, reply, door, id, move);
  });

  app.post<IdParams>('/reseller/customers/:id/fund', async (request, reply) => {
    const t = resellerCustomerMessages[request.panel.lang];
    const id = idOf(request.params.id);
    const move = moveOf(request.body);
    if (move === null) return customerPage(request, reply, door, id, { amount: t.errAmount });
    const done = await found(door.of(request).fund(id, move.amount, move.international));
    if (done === 'insufficient')
      return customerPage(request, reply, door, id, {
        amount: shortOf(move.amount, request.panel.lang),
        values: { amount: String(Math.abs(move.amount)), take: move.amount < 0, international: move.international },
      });
    return reply.redirect(`/panel/reseller/customers/${id}?done=funded`, 303);
  });

  statusRoutes(app, '/reseller/customers', (request, id, status) => found(door.of(request).setStatus(id, status)));

  app.post<IdParams>('/reseller/customers/:id/refund-policy', async (request, reply) => {
    const id = idOf(request.params.id);
    await found(door.of(request).setRefundPolicy(id, ticked(request.body, 'refund')));
    return reply.redirect(`/panel/reseller/customers/${id}?done=policy`, 303);
  });
}
