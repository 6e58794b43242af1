/**
 * The provider side's door to the services: a console page asks it for the services of the
 * request's provider user (`of`). Console areas are `ProviderArea`s; their routes are for
 * provider users only (the plugin mounts them so).
 */
import type { FastifyRequest } from 'fastify';
import type { PanelArea } from '../context.js';
import { actorOf } from '../context.js';
import type { ProviderPanel, ProviderServices } from '../../services/panel/provider/provider-panel.js';
import type { ProviderLive } from '../../services/panel/provider/provider-live.js';
import { NotFound } from '../kit/not-found.js';

export interface ProviderDoor {
  of(request: FastifyRequest): ProviderServices;
}

export type ProviderArea = PanelArea<ProviderDoor>;

export function providerDoor(panel: ProviderPanel): ProviderDoor {
  return { of: (request) => panel.for(actorOf(request)) };
}

/** The live figures, or "not found" where there are none (outside `serve`). */
export function liveOf(request: FastifyRequest, door: ProviderDoor): ProviderLive {
  const live = door.of(request).live;
  if (!live) throw new NotFound('no live figures outside serve');
  return live;
}
