/**
 * Routing of a recipient to an SMPP connection: the connection owning the longest
 * prefix of the number (operator prefixes such as 90532), else the default route. When
 * that connection is not bound, fail over to another bound one: the default route first,
 * then the others in configuration order. No bound connection: undefined.
 */

export interface RouteCandidate {
  name: string;
  prefixes?: string[];
  isBound: boolean;
}

export function preferredRoute(to: string, candidates: readonly RouteCandidate[], defaultRoute: string): string {
  let best: { name: string; length: number } | undefined;
  for (const c of candidates) {
    for (const prefix of c.prefixes ?? []) {
      if (to.startsWith(prefix) && prefix.length > (best?.length ?? 0)) best = { name: c.name, length: prefix.length };
    }
  }
  return best?.name ?? defaultRoute;
}

export function chooseRoute<C extends RouteCandidate>(
  to: string,
  candidates: readonly C[],
  defaultRoute: string,
): C | undefined {
  const preferred = preferredRoute(to, candidates, defaultRoute);
  const order = [preferred, defaultRoute, ...candidates.map((c) => c.name)];
  for (const name of order) {
    const c = candidates.find((x) => x.name === name);
    if (c?.isBound) return c;
  }
  return undefined;
}
