/**
 * Forms that change something: each carries the session's synchronizer token (the plugin
 * refuses a POST without it). A row action is a one-button form; one that cannot be undone
 * asks first, on a page of its own (no script, no dialog).
 */
import type { ComponentChildren } from 'preact';
import type { PanelState } from '../context.js';
import { kitText } from './text.js';

/** A hidden field with the synchronizer token: every POST form carries one. */
export function Csrf(props: { state: PanelState }) {
  return <input type="hidden" name="_csrf" value={props.state.csrf ?? props.state.preCsrf} />;
}

/** A POST form with its token. `hx`: htmx attributes, where the form posts in the background. */
export function PostForm(props: {
  action: string;
  state: PanelState;
  class?: string;
  labelledBy?: string;
  hx?: Record<string, string>;
  children: ComponentChildren;
}) {
  return (
    <form
      method="post"
      action={props.action}
      class={props.class}
      aria-labelledby={props.labelledBy}
      {...(props.hx ?? {})}
    >
      <Csrf state={props.state} />
      {props.children}
    </form>
  );
}

/**
 * One button that posts to `action`, with hidden `fields`. `confirm`: the action cannot be
 * undone, so the button is a link to a page that asks (ConfirmPage), which posts.
 */
export function RowAction(props: {
  action: string;
  state: PanelState;
  label: string;
  fields?: Record<string, string>;
  buttonClass?: string;
  formClass?: string;
  /** A longer name for screen readers (several alike buttons on one page). */
  ariaLabel?: string;
  confirm?: string;
  hx?: Record<string, string>;
}) {
  if (props.confirm !== undefined)
    return (
      <a class={`button ${props.buttonClass ?? 'secondary'}`} href={props.confirm}>
        {props.label}
      </a>
    );
  return (
    <PostForm
      action={props.action}
      state={props.state}
      {...(props.formClass === undefined ? {} : { class: props.formClass })}
      {...(props.hx === undefined ? {} : { hx: props.hx })}
    >
      {Object.entries(props.fields ?? {}).map(([name, value]) => (
        <input type="hidden" name={name} value={value} key={name} />
      ))}
      <button type="submit" class={props.buttonClass} aria-label={props.ariaLabel}>
        {props.label}
      </button>
    </PostForm>
  );
}

/** The page a confirmed RowAction opens: what will happen, the button that does it, and a way back. */
export function ConfirmForm(props: {
  action: string;
  state: PanelState;
  warning: string;
  confirm: string;
  back: string;
}) {
  return (
    <PostForm action={props.action} state={props.state} class="stack">
      <p>{props.warning}</p>
      <div class="actions">
        <button type="submit" class="danger">
          {props.confirm}
        </button>
        <a href={props.back}>{kitText[props.state.lang].cancel}</a>
      </div>
    </PostForm>
  );
}
