/**
 * The customer's templates (docs/panel.md, "Templates"): the API's templates
 * (/templates/create|list|delete) on the panel, each change with its audit row.
 */
import type { Store } from '../../../ports/store.js';
import { TemplateService } from '../../template-service.js';
import type { TemplateView } from '../../template-service.js';
import { maxTemplateNameLength, templateTextIssue } from '../../../domain/templates.js';
import { textTooLong } from '../../../domain/sms-count.js';
import { CustomerPart } from './account-changes.js';

export type TemplateError =
  'name-required' | 'name-long' | 'text-required' | 'text-long' | 'placeholder' | 'duplicate' | 'full';

export type TemplateCreated = { ok: true; templateId: number } | { ok: false; error: TemplateError };

export class CustomerTemplates extends CustomerPart {
  private on(store: Store): TemplateService {
    return new TemplateService(store.templates, this.deps.clock);
  }

  list(): Promise<TemplateView[]> {
    return this.on(this.deps.store).list(this.customer.accountId);
  }

  /** Checked as /templates/create checks it, then saved with its audit row. */
  async create(rawName: string, text: string): Promise<TemplateCreated> {
    const name = rawName.trim();
    if (name === '') return { ok: false, error: 'name-required' };
    if (name.length > maxTemplateNameLength) return { ok: false, error: 'name-long' };
    if (text.trim() === '') return { ok: false, error: 'text-required' };
    if (textTooLong(text)) return { ok: false, error: 'text-long' };
    if (templateTextIssue(text) !== null) return { ok: false, error: 'placeholder' };
    const created = await this.changes.make(
      (store) => this.on(store).create(this.customer.accountId, name, text),
      (done) =>
        done.ok
          ? { action: 'template.create', object: { type: 'template', id: done.value.template_id }, detail: { name } }
          : null,
    );
    if (created.ok) return { ok: true, templateId: created.value.template_id };
    return { ok: false, error: created.variant === 'duplicate' ? 'duplicate' : 'full' };
  }

  /** False: the account has no such template. */
  async remove(templateId: number): Promise<boolean> {
    const removed = await this.changes.make(
      (store) => this.on(store).remove(this.customer.accountId, templateId),
      (done) => (done.ok ? { action: 'template.delete', object: { type: 'template', id: templateId } } : null),
    );
    return removed.ok;
  }
}
