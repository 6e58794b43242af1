/**
 * The customer side's door to the services: a page asks it for the services of the request's
 * user and account (`of`), and reaches nothing else. Customer areas are `AccountArea`s.
 */
import type { FastifyRequest } from 'fastify';
import type { PanelArea } from '../context.js';
import { accountIdOf, actorOf } from '../context.js';
import type { CustomerPanel, CustomerServices } from '../../services/panel/account/customer-panel.js';

export interface AccountDoor {
  of(request: FastifyRequest): CustomerServices;
}

export type AccountArea = PanelArea<AccountDoor>;

export function accountDoor(panel: CustomerPanel): AccountDoor {
  return { of: (request) => panel.for({ accountId: accountIdOf(request.panel), actor: actorOf(request) }) };
}
