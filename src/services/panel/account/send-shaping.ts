/**
 * What the panel's send form adds to a send beyond its text: the window, speed and validity
 * (checked as the API checks them, src/domain/send-controls.ts), a template filled per
 * recipient (from the contact's fields, and an uploaded CSV's columns), and short links.
 * None of it runs for a send that names none of these.
 */
import type { Store } from '../../../ports/store.js';
import type { ShortLinkService } from '../../short-link-service.js';
import { maxSpeed, maxValidityMinutes, parseSendWindow, windowView } from '../../../domain/send-controls.js';
import type { SendControls, SendWindow } from '../../../domain/send-controls.js';
import { fillTemplate, placeholdersOf } from '../../../domain/templates.js';
import { textTooLong, toLineBreaks } from '../../../domain/sms-count.js';
import { countText } from '../../../domain/sms-counter.js';
import type { TextCount } from '../../../domain/sms-counter.js';

/** The controls as the form types them ('' : none asked for). */
export interface ControlsInput {
  from: string;
  to: string;
  /** ISO weekdays ticked, 1 = Monday. */
  days: number[];
  speed: string;
  validity: string;
}

export type ControlsField = 'window' | 'speed' | 'validity';

export const emptyControls: ControlsInput = { from: '', to: '', days: [1, 2, 3, 4, 5, 6, 7], speed: '', validity: '' };

/** Controls (an account's defaults) as the form shows them. */
export function controlsInput(c: SendControls | null | undefined): ControlsInput {
  if (!c) return emptyControls;
  const w = c.window === null ? null : windowView(c.window);
  return {
    from: w?.from ?? '',
    // A time input has no 24:00: the end of the day is 00:00 there (parseSendWindow reads it so).
    to: w === null ? '' : w.to === '24:00' ? '00:00' : w.to,
    days: w?.days ?? emptyControls.days,
    speed: c.speed === null ? '' : String(c.speed),
    validity: c.validityMinutes === null ? '' : String(c.validityMinutes),
  };
}

function bounded(raw: string, max: number): number | null | 'invalid' {
  const text = raw.trim();
  if (text === '') return null;
  if (!/^\d{1,6}$/.test(text)) return 'invalid';
  const n = Number(text);
  return n >= 1 && n <= max ? n : 'invalid';
}

/** The controls typed, or the fields that are not valid. */
export function parseControls(
  input: ControlsInput,
): { ok: true; controls: SendControls } | { ok: false; errors: ControlsField[] } {
  const errors: ControlsField[] = [];
  let window: SendWindow | null = null;
  if (input.from.trim() !== '' || input.to.trim() !== '') {
    const parsed = parseSendWindow({ from: input.from.trim(), to: input.to.trim(), days: input.days });
    if (parsed.ok) window = parsed.window;
    else errors.push('window');
  }
  const speed = bounded(input.speed, maxSpeed);
  if (speed === 'invalid') errors.push('speed');
  const validity = bounded(input.validity, maxValidityMinutes);
  if (validity === 'invalid') errors.push('validity');
  if (errors.length > 0 || speed === 'invalid' || validity === 'invalid') return { ok: false, errors };
  return { ok: true, controls: { window, speed, validityMinutes: validity } };
}

/** What shapes a send's texts. */
export interface TextsInput {
  text: string;
  templateId: number | null;
  shortLinks: boolean;
  /** Fields of the uploaded CSV's rows, by normalised number (they win over the contact's). */
  csvFields: ReadonlyMap<string, Readonly<Record<string, string>>>;
}

export type ShapeError =
  | { field: 'template'; error: 'not-found' | 'missing-field' }
  | { field: 'text'; error: 'too-long' }
  | { field: 'links'; error: 'invalid' };

/**
 * One text for every recipient (`texts` null) or one each; with short links, the base their
 * URLs become links under as the send's messages are written out (`linkBase`).
 */
export interface Shaped {
  text: string;
  texts: string[] | null;
  linkBase: string | null;
}

/** The template's text of the account, or null when it has none of this id. */
export async function templateText(store: Store, accountId: number, templateId: number): Promise<string | null> {
  const template = await store.templates.find(accountId, templateId);
  return template ? toLineBreaks(template.text) : null;
}

/**
 * The texts of a send to `recipients` (normalised, distinct): the template filled for each
 * (no message goes out with a gap: a recipient lacking a field refuses the send, as the API
 * does); with short links, the texts checked for them (ShortLinkService.later).
 */
export async function shapeTexts(
  deps: { store: Store; links: ShortLinkService },
  accountId: number,
  input: TextsInput,
  recipients: readonly string[],
): Promise<{ ok: true; shaped: Shaped } | ({ ok: false; missing?: string } & ShapeError)> {
  let text = input.text;
  let texts: string[] | null = null;
  if (input.templateId !== null) {
    const found = await templateText(deps.store, accountId, input.templateId);
    if (found === null) return { ok: false, field: 'template', error: 'not-found' };
    text = found;
    if (placeholdersOf(text).length > 0) {
      const contacts = await deps.store.templates.contactFields(accountId, recipients);
      texts = [];
      for (const recipient of recipients) {
        const filled = fillTemplate(text, { ...contacts.get(recipient), ...input.csvFields.get(recipient) });
        if ('missing' in filled)
          return {
            ok: false,
            field: 'template',
            error: 'missing-field',
            missing: `${recipient}: {{${filled.missing}}}`,
          };
        if (textTooLong(filled.text)) return { ok: false, field: 'text', error: 'too-long' };
        texts.push(filled.text);
      }
    }
  }
  if (!input.shortLinks) return { ok: true, shaped: { text, texts, linkBase: null } };
  const base = deps.links.later(texts ?? toLineBreaks(text));
  if (!base.ok)
    return base.code === 'TS-1026'
      ? { ok: false, field: 'text', error: 'too-long' }
      : { ok: false, field: 'links', error: 'invalid' };
  return { ok: true, shaped: { text, texts, linkBase: base.value } };
}

/** The count of per-recipient texts: the widest encoding among them (the send's sms_lang), the longest text. */
export function widestCount(texts: readonly string[]): TextCount {
  let widest: TextCount = countText(texts[0] ?? '');
  for (const t of texts) {
    const c = countText(t);
    if (c.lang > widest.lang || (c.lang === widest.lang && c.characters > widest.characters)) widest = c;
  }
  return widest;
}
