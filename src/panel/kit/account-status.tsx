/**
 * Suspending and reactivating an account, shared by the provider's page of an account and
 * the reseller's page of a customer: the section with its one button (suspend while active,
 * reactivate while suspended), and the two routes it posts to.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { PanelState } from '../context.js';
import { RowAction } from './post-form.js';
import { idOf } from './forms.js';

type AccountStatus = 'Active' | 'Suspended';

export interface StatusTexts {
  heading: string;
  text: string;
  suspend: string;
  reactivate: string;
}

/** The section of the page at `base`: its button posts to `${base}/suspend` or `${base}/reactivate`. */
export function StatusSection(props: { state: PanelState; base: string; active: boolean; texts: StatusTexts }) {
  const { active, texts: t } = props;
  return (
    <>
      <h2>{t.heading}</h2>
      <p class="muted">{t.text}</p>
      <RowAction
        action={`${props.base}/${active ? 'suspend' : 'reactivate'}`}
        state={props.state}
        label={active ? t.suspend : t.reactivate}
        formClass="stack"
        {...(active ? { buttonClass: 'danger' } : {})}
      />
    </>
  );
}

/**
 * `${path}/:id/suspend` and `${path}/:id/reactivate`: the status set by `setStatus` (which
 * answers "not found" for an id not the user's), then back to the page with its notice.
 */
export function statusRoutes(
  app: FastifyInstance,
  path: string,
  setStatus: (request: FastifyRequest, id: number, status: AccountStatus) => Promise<unknown>,
): void {
  for (const [verb, status, done] of [
    ['suspend', 'Suspended', 'suspended'],
    ['reactivate', 'Active', 'reactivated'],
  ] as const) {
    app.post<{ Params: { id: string } }>(`${path}/:id/${verb}`, async (request, reply) => {
      const id = idOf(request.params.id);
      await setStatus(request, id, status);
      return reply.redirect(`/panel${path}/${id}?done=${done}`, 303);
    });
  }
}
