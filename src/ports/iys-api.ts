/** The İYS service as the sync job sees it (adapters/iys/iys-client.ts speaks its REST API). */
import type { Consent } from '../domain/iys.js';

/** İYS could not be asked or did not answer in its shape: try again later. Never holds a secret. */
export class IysUnavailable extends Error {}

/** Per consent pushed: taken, or refused by İYS for a reason of its own (not to retry). */
export type PushResult = { ok: true } | { ok: false; error: string };

export interface ChangesPage {
  /** Where the next pull goes on from (İYS's `after`); unchanged when nothing new came. */
  after: string | null;
  consents: Consent[];
  /** Items İYS sent that are not SMS consents of Türkiye mobiles (skipped), with why. */
  skipped: string[];
}

/** One account's (brand's) İYS. Methods throw IysUnavailable when İYS cannot answer now. */
export interface IysApi {
  /** Pushes consents; a result per consent, in order. */
  add(consents: readonly Consent[]): Promise<PushResult[]>;
  /** One page of the changes made on İYS after `after` (null: from the start). */
  changes(after: string | null, limit: number): Promise<ChangesPage>;
}
