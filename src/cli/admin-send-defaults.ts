/**
 * `haberci admin account update --send-window JSON --speed N --validity-minutes N`: an
 * account's send defaults (docs/api.md, "Send window, speed and validity"), each one taken
 * by a send that names none of its own; `none` takes a default away.
 */
import { InvalidArgumentError } from 'commander';
import type { Command } from 'commander';
import { maxSpeed, maxValidityMinutes, parseSendWindow } from '../domain/send-controls.js';
import type { SendControls, SendWindow } from '../domain/send-controls.js';
import { parse } from './option-parsers.js';
import type { Options } from './admin-types.js';

/** `none` stays the word (commander reads a parser's null as no value): the change makes it null. */
function orNone<T>(inner: (raw: string) => T): (raw: string) => T | 'none' {
  return (raw) => (raw.trim() === 'none' ? 'none' : inner(raw));
}

const noneAsNull = <T>(value: unknown): T | null => (value === 'none' ? null : (value as T));

function sendWindow(raw: string): SendWindow {
  let value: unknown;
  try {
    value = JSON.parse(raw);
  } catch {
    throw new InvalidArgumentError(
      'must be JSON such as {"from": "09:00", "to": "18:00", "days": [1,2,3,4,5]}, or none.',
    );
  }
  const parsed = parseSendWindow(value);
  if (!parsed.ok) throw new InvalidArgumentError(`${parsed.reason}.`);
  return parsed.window;
}

export function sendDefaultOptions(cmd: Command): Command {
  return cmd
    .option(
      '--send-window <json>',
      'default send window, {"from": "HH:MM", "to": "HH:MM", "days": [1..7]} in Istanbul time (1 = Monday); none: no default',
      orNone(sendWindow),
    )
    .option('--speed <n>', 'default speed, messages a minute; none: no default', orNone(parse.integer(1, maxSpeed)))
    .option(
      '--validity-minutes <n>',
      `default validity, 1 to ${maxValidityMinutes} minutes; none: no default`,
      orNone(parse.integer(1, maxValidityMinutes)),
    );
}

/** The defaults the options change (absent: left as they are). */
export function sendDefaultsChange(o: Options): { sendDefaults?: Partial<SendControls> } {
  const change: Partial<SendControls> = {};
  if (o.sendWindow !== undefined) change.window = noneAsNull<SendWindow>(o.sendWindow);
  if (o.speed !== undefined) change.speed = noneAsNull<number>(o.speed);
  if (o.validityMinutes !== undefined) change.validityMinutes = noneAsNull<number>(o.validityMinutes);
  return Object.keys(change).length === 0 ? {} : { sendDefaults: change };
}
