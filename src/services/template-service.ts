import type { Clock } from '../ports/clock.js';
import type { Template, TemplateStore } from '../ports/template-store.js';
import { fillTemplate, maxTemplatesPerAccount, placeholdersOf } from '../domain/templates.js';
import type { ContactFields } from '../domain/templates.js';
import { localDateTime } from '../domain/istanbul-time.js';
import { textTooLong, toLineBreaks } from '../domain/sms-count.js';
import { fail, ok } from '../domain/result.js';
import type { Result } from '../domain/result.js';

export interface TemplateView {
  template_id: number;
  name: string;
  text: string;
  placeholders: string[];
  created_at: string;
}

/**
 * The texts of a send that names a template: `text` when the template has no placeholder
 * (one text for every number, as a send with `text`), or one filled text per number.
 */
export type TemplateTexts = { text: string; texts: null } | { text: string; texts: string[] };

function view(t: Template): TemplateView {
  return {
    template_id: t.id,
    name: t.name,
    text: t.text,
    placeholders: placeholdersOf(t.text),
    created_at: localDateTime(t.createdAt),
  };
}

/** An account's saved texts, and how a send fills one for its numbers. */
export class TemplateService {
  constructor(
    private readonly templates: TemplateStore,
    private readonly clock: Clock,
  ) {}

  async create(accountId: number, name: string, text: string): Promise<Result<{ template_id: number }>> {
    const created = await this.templates.create(
      { accountId, name, text, createdAt: this.clock.now() },
      maxTemplatesPerAccount,
    );
    if (created === 'duplicate')
      return fail('TS-1033', { variant: 'duplicate', message: 'A template with this name already exists' });
    if (created === 'full')
      return fail('TS-1060', { message: `An account keeps at most ${maxTemplatesPerAccount} templates` });
    return ok({ template_id: created.id });
  }

  async list(accountId: number): Promise<TemplateView[]> {
    return (await this.templates.list(accountId)).map(view);
  }

  async remove(accountId: number, templateId: number): Promise<Result<true>> {
    return (await this.templates.remove(accountId, templateId)) ? ok(true) : templateNotFound('TS-1029');
  }

  /**
   * The texts of a send of `templateId` to `numbers` (normalised, distinct), TS-L already a
   * line break. Refused with TS-1026 when the account has no such template, when a number
   * lacks a field a placeholder names (no message goes out with a gap: docs/decisions.md,
   * "Templates"), or when a filled text is over 2,000 characters.
   */
  async textsFor(accountId: number, templateId: number, numbers: readonly string[]): Promise<Result<TemplateTexts>> {
    const template = await this.templates.find(accountId, templateId);
    if (!template) return templateNotFound('TS-1026');
    const text = toLineBreaks(template.text);
    if (placeholdersOf(text).length === 0) return ok({ text, texts: null });
    const fields = await this.templates.contactFields(accountId, numbers);
    return fillAll(text, numbers, fields);
  }
}

function templateNotFound(code: 'TS-1026' | 'TS-1029') {
  return fail(code, { variant: 'not-found', message: 'No template of this account has this template_id' });
}

/** One filled text per number, or the refusal naming the first number that cannot have one. */
export function fillAll(
  text: string,
  numbers: readonly string[],
  fields: ReadonlyMap<string, ContactFields>,
): Result<TemplateTexts> {
  const texts: string[] = [];
  let lacking = 0;
  let first: { number: string; field: string } | null = null;
  for (const number of numbers) {
    const filled = fillTemplate(text, fields.get(number));
    if ('missing' in filled) {
      lacking += 1;
      first ??= { number, field: filled.missing };
      continue;
    }
    if (textTooLong(filled.text))
      return fail('TS-1026', { message: `The text filled for ${number} is longer than 2000 characters` });
    texts.push(filled.text);
  }
  if (first !== null)
    return fail('TS-1026', {
      message: `${lacking} number(s) lack a field of the template, first ${first.number}: no value for {{${first.field}}}`,
    });
  return ok({ text, texts });
}
