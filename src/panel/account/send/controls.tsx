/**
 * The send window (from, to, days), the speed and the validity as form fields: on the send
 * page (prefilled with the account's defaults) and on the account page (the defaults).
 */
import type { Lang } from '../../catalogue.js';
import type { PanelState } from '../../context.js';
import { Field, described } from '../../kit/fields.js';
import { field, list } from '../../kit/forms.js';
import { sendMessages } from './catalogue.js';
import type { ControlsField, ControlsInput } from '../../../services/panel/account/send-shaping.js';
import type { SendControls } from '../../../domain/send-controls.js';
import { windowView } from '../../../domain/send-controls.js';

const weekdays = [1, 2, 3, 4, 5, 6, 7] as const;

/** The controls a form posted (`window_from`, `window_to`, `window_days`, `speed`, `validity_minutes`). */
export function controlsOf(body: unknown): ControlsInput {
  return {
    from: field(body, 'window_from').slice(0, 5),
    to: field(body, 'window_to').slice(0, 5),
    days: list(body, 'window_days')
      .slice(0, 7)
      .map(Number)
      .filter((d) => Number.isInteger(d) && d >= 1 && d <= 7),
    speed: field(body, 'speed').slice(0, 12),
    validity: field(body, 'validity_minutes').slice(0, 12),
  };
}

/** The text of an error of one of the fields. */
export function controlsErrorText(lang: Lang, f: ControlsField): string {
  const t = sendMessages[lang];
  return { window: t.errWindow, speed: t.errSpeed, validity: t.errValidity }[f];
}

/** The controls in one line (the preview, the account page). */
export function controlsText(lang: Lang, c: SendControls): string {
  const t = sendMessages[lang];
  const parts: string[] = [];
  if (c.window !== null) {
    const w = windowView(c.window);
    parts.push(t.controlsWindow(w.from, w.to, w.days.map((d) => t.dayName(d)).join(', ')));
  }
  if (c.speed !== null) parts.push(t.controlsSpeed(c.speed));
  if (c.validityMinutes !== null) parts.push(t.controlsValidity(c.validityMinutes));
  return parts.join('; ');
}

/** The whole-number controls, in the form's order: each one's form name and bounds. */
const numberBounds = {
  speed: { name: 'speed', min: '1', max: '100000' },
  validity: { name: 'validity_minutes', min: '1', max: '2880' },
} as const;
const numberControls = ['speed', 'validity'] as const;

function NumberControl(props: {
  control: (typeof numberControls)[number];
  value: ControlsInput;
  errors: Partial<Record<ControlsField, string>>;
  id: string;
  state: PanelState;
}) {
  const { control } = props;
  const error = props.errors[control];
  const bounds = numberBounds[control];
  const id = `${props.id}-${control}`;
  return (
    <Field id={id} label={sendMessages[props.state.lang][control]} error={error} state={props.state}>
      <input
        id={id}
        name={bounds.name}
        type="number"
        min={bounds.min}
        max={bounds.max}
        value={props.value[control]}
        {...described(id, error)}
      />
    </Field>
  );
}

export function ControlsFieldset(props: {
  lang: Lang;
  state: PanelState;
  value: ControlsInput;
  errors: Partial<Record<ControlsField, string>>;
  /** The id prefix of the fields (two forms on one page never share ids). */
  id: string;
  legend?: string;
}) {
  const t = sendMessages[props.lang];
  const { value, errors, id, state } = props;
  return (
    <fieldset class="field" aria-describedby={`${id}-help`}>
      <legend>{props.legend ?? t.controls}</legend>
      <p class="help" id={`${id}-help`}>
        {t.controlsHelp}
      </p>
      <Field id={`${id}-from`} label={t.windowFrom} error={errors.window} state={state}>
        <input
          id={`${id}-from`}
          name="window_from"
          type="time"
          value={value.from}
          {...described(`${id}-from`, errors.window)}
        />
      </Field>
      <Field id={`${id}-to`} label={t.windowTo} state={state}>
        <input id={`${id}-to`} name="window_to" type="time" value={value.to} />
      </Field>
      <fieldset>
        <legend>{t.windowDays}</legend>
        {weekdays.map((d) => (
          <label key={d}>
            <input type="checkbox" name="window_days" value={String(d)} checked={value.days.includes(d)} />{' '}
            {t.dayName(d)}
          </label>
        ))}
      </fieldset>
      {numberControls.map((control) => (
        <NumberControl key={control} control={control} value={value} errors={errors} id={id} state={state} />
      ))}
    </fieldset>
  );
}
