/**
 * Form fields wired for screen readers: an input names its hint and its error with
 * `aria-describedby` and is marked `aria-invalid` when refused; the error of input `id` is
 * the element `${id}-error`, next to it.
 */
import type { ComponentChildren } from 'preact';
import type { PanelState } from '../context.js';
import { kitText } from './text.js';

/** The ARIA attributes of input `id`: its hint element's id (if any) and its error, when there is one. */
export function described(
  id: string,
  error: string | undefined,
  hint?: string,
): { 'aria-invalid'?: 'true'; 'aria-describedby'?: string } {
  const ids = [hint, error !== undefined ? `${id}-error` : undefined].filter((x) => x !== undefined).join(' ');
  return {
    ...(error !== undefined ? { 'aria-invalid': 'true' as const } : {}),
    ...(ids !== '' ? { 'aria-describedby': ids } : {}),
  };
}

/** A field's error, tied to its input by id (aria-describedby) and shown next to it. */
export function FieldError(props: { id: string; text: string | undefined; state: PanelState }) {
  if (props.text === undefined) return null;
  return (
    <p class="field-error" id={props.id}>
      {kitText[props.state.lang].fieldError(props.text)}
    </p>
  );
}

/** A hint under an input (the id `described` names), and the input's error. */
export function HintAndError(props: {
  id: string;
  hint?: string | undefined;
  error?: string | undefined;
  state: PanelState;
}) {
  return (
    <>
      {props.hint !== undefined && (
        <p class="muted" id={`${props.id}-hint`}>
          {props.hint}
        </p>
      )}
      <FieldError id={`${props.id}-error`} text={props.error} state={props.state} />
    </>
  );
}

/** A form control with its label above it and its hint and error under it. */
export function Field(props: {
  id: string;
  label: string;
  hint?: string | undefined;
  error?: string | undefined;
  state: PanelState;
  class?: string;
  children: ComponentChildren;
}) {
  return (
    <div class={props.class}>
      <label for={props.id}>{props.label}</label>
      {props.children}
      <HintAndError id={props.id} hint={props.hint} error={props.error} state={props.state} />
    </div>
  );
}

/** What an input may say besides its id, name, value and ARIA wiring (autocomplete, required, limits). */
type ControlAttributes = Record<string, string | number | boolean | undefined>;

/** What a labelled control is given: its id and name, its label, and the hint and error it is described by. */
interface ControlProps {
  id: string;
  name: string;
  label: string;
  state: PanelState;
  hint?: string;
  error?: string | undefined;
}

/** A control in its Field, described by its hint (when there is one) and its error. */
function LabelledControl(props: ControlProps & { control: (aria: ReturnType<typeof described>) => ComponentChildren }) {
  const { id, hint, error } = props;
  return (
    <Field id={id} label={props.label} hint={hint} error={error} state={props.state}>
      {props.control(described(id, error, hint === undefined ? undefined : `${id}-hint`))}
    </Field>
  );
}

/** A labelled input (text unless `type` says otherwise), described by its hint and its error. */
export function InputField(props: ControlProps & { type?: string; value?: string; attributes?: ControlAttributes }) {
  return (
    <LabelledControl
      {...props}
      control={(aria) => (
        <input
          id={props.id}
          name={props.name}
          type={props.type ?? 'text'}
          value={props.value}
          {...props.attributes}
          {...aria}
        />
      )}
    />
  );
}

/** A new password's input, as password managers know it: at least 10 characters, required. */
export function NewPasswordField(props: Omit<ControlProps, 'id'>) {
  return (
    <InputField
      id="new-password"
      type="password"
      {...props}
      attributes={{ autocomplete: 'new-password', required: true, minLength: 10 }}
    />
  );
}

/** A labelled text area, described by its hint and its error. */
export function TextAreaField(props: ControlProps & { value: string; rows: number }) {
  return (
    <LabelledControl
      {...props}
      control={(aria) => (
        <textarea id={props.id} name={props.name} rows={props.rows} {...aria}>
          {props.value}
        </textarea>
      )}
    />
  );
}

/** A status line shown at the top of a page after an action. */
export function Notice(props: { text: string | undefined; kind?: 'ok' | 'error' }) {
  if (props.text === undefined) return null;
  return (
    <p class={`notice ${props.kind ?? 'ok'}`} role={props.kind === 'error' ? 'alert' : 'status'}>
      {props.text}
    </p>
  );
}
