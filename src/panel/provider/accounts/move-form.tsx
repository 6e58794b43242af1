/** The console's forms that move an account's credit: top up, and debit with a reason. */
import type { FastifyRequest } from 'fastify';
import { InputField } from '../../kit/fields.js';
import { AmountField } from '../../kit/amount-field.js';
import { PostForm } from '../../kit/post-form.js';
import { Choice, SubmitRow } from '../../kit/form-rows.js';
import { providerAccountMessages } from './catalogue.js';

/** A refused top-up or debit: the errors by field, and what was typed. */
export interface AccountErrors {
  topup?: string;
  debitAmount?: string;
  debitReason?: string;
  values?: { topup?: string; debitAmount?: string; debitReason?: string };
}

/** Top up or debit: an amount, the bucket, and (a debit) the reason. */
export function MoveForm(props: {
  request: FastifyRequest;
  base: string;
  move: 'topup' | 'debit';
  errors: AccountErrors;
}) {
  const { base, move, errors } = props;
  const state = props.request.panel;
  const t = providerAccountMessages[state.lang];
  const text =
    move === 'topup'
      ? { heading: t.topupHeading, amount: t.topupAmount, international: t.topupInternational, button: t.topup }
      : { heading: t.debitHeading, amount: t.debitAmount, international: t.debitInternational, button: t.debit };
  const amount =
    move === 'topup'
      ? { value: errors.values?.topup, error: errors.topup }
      : {
          value: errors.values?.debitAmount,
          error: errors.debitAmount,
        };
  return (
    <>
      <h2 id={`${move}-heading`}>{text.heading}</h2>
      <PostForm action={`${base}/${move}`} state={state} class="stack" labelledBy={`${move}-heading`}>
        <AmountField
          id={`${move}-amount`}
          label={text.amount}
          value={amount.value}
          error={amount.error}
          state={state}
        />
        {move === 'debit' && (
          <InputField
            id="debit-reason"
            name="reason"
            label={t.debitReason}
            value={errors.values?.debitReason ?? ''}
            error={errors.debitReason}
            state={state}
            attributes={{ maxLength: 500, required: true }}
          />
        )}
        <Choice id={`${move}-international`} name="international" label={text.international} />
        <SubmitRow label={text.button} />
      </PostForm>
    </>
  );
}
