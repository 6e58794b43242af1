import type { Carrier } from '../../../ports/carrier.js';
import { SmppCarrier } from './smpp-carrier.js';
import type { SmppCarrierOptions } from './smpp-carrier.js';
import { loadSmppConfig } from './smpp-config.js';

/**
 * The SMPP carrier's entry in the composition root's list of carriers (main.ts): reads and
 * checks the JSON file of its connections (docs/smpp.md); open() builds the carrier, which
 * binds when the dispatcher starts it.
 */
export async function loadSmppCarrier(
  path: string,
): Promise<{ ok: true; open(options: SmppCarrierOptions): Carrier } | { ok: false; message: string }> {
  const loaded = await loadSmppConfig(path);
  if (!loaded.ok) return loaded;
  return { ok: true, open: (options) => new SmppCarrier(loaded.config, options) };
}
