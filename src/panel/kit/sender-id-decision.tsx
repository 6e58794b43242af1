/**
 * A sender ID request's decision cell, shared by the provider's queue and the reseller's:
 * approve, or reject with a reason the customer sees (refused, the reason typed comes back
 * with its error).
 */
import type { PanelState } from '../context.js';
import { InputField } from './fields.js';
import { PostForm, RowAction } from './post-form.js';

/** A rejection refused for want of a reason: the request's id, the reason typed, the error. */
export interface RefusedRejection {
  id: number;
  reason: string;
  error: string;
}

export interface DecisionTexts {
  approve(title: string): string;
  reject(title: string): string;
  reasonLabel(title: string): string;
}

export function SenderIdDecision(props: {
  state: PanelState;
  /** The queue's path: the forms post to `<base>/<id>/approve|reject`. */
  base: string;
  request: { id: number; title: string };
  texts: DecisionTexts;
  refused: RefusedRejection | undefined;
}) {
  const { state, request: s, texts: t } = props;
  const refused = props.refused?.id === s.id ? props.refused : undefined;
  return (
    <>
      <RowAction action={`${props.base}/${s.id}/approve`} state={state} label={t.approve(s.title)} formClass="inline" />
      <PostForm action={`${props.base}/${s.id}/reject`} state={state} class="stack">
        <InputField
          id={`reason-${s.id}`}
          name="reason"
          label={t.reasonLabel(s.title)}
          value={refused?.reason ?? ''}
          error={refused?.error}
          state={state}
          attributes={{ maxLength: 500, required: true }}
        />
        <div>
          <button type="submit" class="danger">
            {t.reject(s.title)}
          </button>
        </div>
      </PostForm>
    </>
  );
}
