/**
 * The audit rows of the customer panel's actions (issue 22). A route calls `audited` once
 * its change succeeded, with what it did in plain words (never a posted field as is: the
 * body may hold a password, a key or a webhook secret). The row is written after the
 * change, not inside its transaction (decisions.md, "Provider console").
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

/** Records a customer user's action on their own account. */
export async function audited(request: FastifyRequest, deps: PanelDeps, fact: AuditFact): Promise<void> {
  await deps.account.audit.record(actorOf(request), { accountId: request.panel.user?.accountId ?? null, ...fact });
}
