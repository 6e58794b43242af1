/**
 * The field of an amount of credit to move (the console's top-up and debit, the reseller's
 * funding of a customer): a whole number, typed on a numeric keypad, named `amount`.
 */
import type { PanelState } from '../context.js';
import { InputField } from './fields.js';

export function AmountField(props: {
  id: string;
  label: string;
  /** What was typed, on a refused form. */
  value: string | undefined;
  error: string | undefined;
  state: PanelState;
  /** The digits it takes at the most, where the form bounds them. */
  maxLength?: number;
}) {
  return (
    <InputField
      id={props.id}
      name="amount"
      label={props.label}
      value={props.value ?? ''}
      error={props.error}
      state={props.state}
      attributes={{
        inputMode: 'numeric',
        required: true,
        ...(props.maxLength === undefined ? {} : { maxLength: props.maxLength }),
      }}
    />
  );
}
