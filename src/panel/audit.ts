/**
 * The audit rows of the customer panel's actions (issue 22). A route calls `audited` once
 * its change succeeded, with what it did in plain words and only fields known to be no
 * secret (never the body as a whole: it may hold a password, a key or a webhook secret). The row is written after the
 * change, not inside its transaction (decisions.md, "Provider console and audit log").
 */
import type { FastifyRequest } from 'fastify';
import type { PanelDeps } from './context.js';
import type { Actor, AuditFact } from '../services/console/audit-log.js';

/** The signed-in user making the request, from the request's address. */
export function actorOf(request: FastifyRequest): Actor {
  const user = request.panel.user;
  if (!user) throw new Error('an audited action ran without a signed-in user');
  return { kind: 'user', userId: user.id, email: user.email, address: request.ip };
}

/**
 * Records a customer user's action on their own account. The change is made already: a
 * row that cannot be written is logged, not answered with an error page that would invite
 * the user to do it again (a second send).
 */
export async function audited(request: FastifyRequest, deps: PanelDeps, fact: AuditFact): Promise<void> {
  await auditedAs(request, deps, actorOf(request), { accountId: request.panel.user?.accountId ?? null, ...fact });
}

/** The same for an actor the session does not name (a password set through a one-time link). */
export async function auditedAs(
  request: FastifyRequest,
  deps: PanelDeps,
  actor: Actor,
  fact: AuditFact,
): Promise<void> {
  try {
    await deps.account.audit.record(actor, fact);
  } catch (error) {
    request.log.error(
      { err: { message: error instanceof Error ? error.message : String(error) }, action: fact.action },
      'panel: audit row not written',
    );
  }
}
