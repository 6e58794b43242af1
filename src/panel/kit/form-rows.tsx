/**
 * Rows of a stacked form besides its labelled inputs (fields.tsx): a check box or radio
 * button with its label after it, and the row of the submit button.
 */

/** A check box (`type` checkbox, the default) or radio button, with its label after it. */
export function Choice(props: {
  id: string;
  name: string;
  label: string;
  type?: 'checkbox' | 'radio';
  /** What it posts when ticked: "1" unless said. */
  value?: string;
  checked?: boolean;
}) {
  return (
    <div>
      <input
        id={props.id}
        name={props.name}
        type={props.type ?? 'checkbox'}
        value={props.value ?? '1'}
        checked={props.checked}
      />
      <label for={props.id}>{props.label}</label>
    </div>
  );
}

/** The form's submit button, on a row of its own. */
export function SubmitRow(props: { label: string }) {
  return (
    <div>
      <button type="submit">{props.label}</button>
    </div>
  );
}
