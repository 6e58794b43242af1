/**
 * The reseller side's door to the services: a page asks it for the desk of the request's
 * user and reseller account (`of`), which reaches that reseller's customers and nothing
 * else. Reseller areas are `ResellerArea`s; their routes are for users of a reseller
 * account only (the plugin mounts them so; any other user is answered "not found").
 */
import type { FastifyRequest } from 'fastify';
import type { PanelArea } from '../context.js';
import { accountIdOf, actorOf } from '../context.js';
import type { ResellerDesk, ResellerPanel } from '../../services/panel/reseller/reseller-panel.js';

export interface ResellerDoor {
  of(request: FastifyRequest): ResellerDesk;
}

export type ResellerArea = PanelArea<ResellerDoor>;

export function resellerDoor(panel: ResellerPanel): ResellerDoor {
  return { of: (request) => panel.for({ accountId: accountIdOf(request.panel), user: actorOf(request) }) };
}
