/**
 * Every migration of the schema, in order, for both dialects: one file each, named as its
 * migration is recorded in the stores it ran on (`kysely_migration.name`). A new migration
 * is a new file, a line here and its fingerprints in test/adapters/store/migration-history.json;
 * a recorded one is never renamed or changed (that test fails if its statements move).
 */
import type { Migration, MigrationProvider } from 'kysely';
import type { Dialect } from '../store-location.js';
import { migration as m0001 } from './0001-accounts-keys.js';
import { migration as m0002 } from './0002-sends-messages.js';
import { migration as m0003 } from './0003-groups-contacts-blocklist.js';
import { migration as m0004 } from './0004-webhook-events.js';
import { migration as m0005 } from './0005-bulk-expansion.js';
import { migration as m0006 } from './0006-inbound.js';
import { migration as m0007 } from './0007-claim-order.js';
import { migration as m0008 } from './0008-lookup-version.js';
import { migration as m0009 } from './0009-drop-unread-indexes.js';
import { migration as m0010 } from './0010-balance-version.js';
import { migration as m0011 } from './0011-webhook-event-selection.js';
import { migration as m0012 } from './0012-unique-sender-ids.js';
import { migration as m0013 } from './0013-webhook-retry-schedule.js';
import { migration as m0014 } from './0014-panel-users.js';
import { migration as m0015 } from './0015-panel-counts.js';
import { migration as m0017 } from './0017-traffic-minutes.js';
import { migration as m0016 } from './0016-rollups-by-writes.js';
import { migration as m0018 } from './0018-audit-log.js';
import { migration as m0019 } from './0019-retention.js';
import { migration as m0020 } from './0020-rate-windows.js';
import { migration as m0021 } from './0021-lookup-notify.js';
import { migration as m0024 } from './0024-iys.js';
import { migration as m0025 } from './0025-smpp-users.js';
import { migration as m0026 } from './0026-otp.js';
import { migration as m0028 } from './0028-consent-versions.js';
import { migration as m0029 } from './0029-otp-watch.js';
import { migration as m0030 } from './0030-smpp-parts-mo.js';
import { migration as m0031 } from './0031-consent-rets-index.js';
import { migration as m0032 } from './0032-smpp-binds.js';
import { migration as m0033 } from './0033-lanes.js';
import { migration as m0034 } from './0034-carrier-binds.js';
import { migration as m0035 } from './0035-derived-counts.js';
import { migration as m0036 } from './0036-consent-sync-counts.js';
import { migration as m0038 } from './0038-otp-prefix-rates.js';
import { migration as m0039 } from './0039-smpp-part-schedule.js';
import { migration as m0045 } from './0045-resellers.js';
import { migration as m0055 } from './0055-templates.js';
import { migration as m0056 } from './0056-short-links.js';
import { migration as m0057 } from './0057-campaign-controls.js';
import { migration as m0058 } from './0058-outbox.js';
import { migration as m0059 } from './0059-send-controls.js';
import { migration as m0060 } from './0060-refund-policy.js';
import { migration as m0061 } from './0061-webhook-buckets.js';
import { migration as m0063 } from './0063-cancel-settling.js';
import { migration as m0064 } from './0064-brands.js';
import { migration as m0065 } from './0065-send-short-links.js';

const ordered: readonly [string, (dialect: Dialect) => Migration][] = [
  ['0001-accounts-keys', m0001],
  ['0002-sends-messages', m0002],
  ['0003-groups-contacts-blocklist', m0003],
  ['0004-webhook-events', m0004],
  ['0005-bulk-expansion', m0005],
  ['0006-inbound', m0006],
  ['0007-claim-order', m0007],
  ['0008-lookup-version', m0008],
  ['0009-drop-unread-indexes', m0009],
  ['0010-balance-version', m0010],
  ['0011-webhook-event-selection', m0011],
  ['0012-unique-sender-ids', m0012],
  ['0013-webhook-retry-schedule', m0013],
  ['0014-panel-users', m0014],
  ['0015-panel-counts', m0015],
  ['0016-rollups-by-writes', m0016],
  ['0017-traffic-minutes', m0017],
  ['0018-audit-log', m0018],
  ['0019-retention', m0019],
  ['0020-rate-windows', m0020],
  ['0021-lookup-notify', m0021],
  ['0024-iys', m0024],
  ['0025-smpp-users', m0025],
  ['0026-otp', m0026],
  ['0028-consent-versions', m0028],
  ['0029-otp-watch', m0029],
  ['0030-smpp-parts-mo', m0030],
  ['0031-consent-rets-index', m0031],
  ['0032-smpp-binds', m0032],
  ['0033-lanes', m0033],
  ['0034-carrier-binds', m0034],
  ['0035-derived-counts', m0035],
  ['0036-consent-sync-counts', m0036],
  ['0038-otp-prefix-rates', m0038],
  ['0039-smpp-part-schedule', m0039],
  ['0045-resellers', m0045],
  ['0055-templates', m0055],
  ['0056-short-links', m0056],
  ['0057-campaign-controls', m0057],
  ['0058-outbox', m0058],
  ['0059-send-controls', m0059],
  ['0060-refund-policy', m0060],
  ['0061-webhook-buckets', m0061],
  ['0063-cancel-settling', m0063],
  ['0064-brands', m0064],
  ['0065-send-short-links', m0065],
];

/** The name of this build's last migration: recorded in a store once every migration ran on it. */
export const latestMigration: string = ordered[ordered.length - 1]?.[0] ?? '';

/** Every migration name this build knows: a store that recorded another was migrated by a newer build. */
export const knownMigrations: ReadonlySet<string> = new Set(ordered.map(([name]) => name));

/** The store's migrations for a dialect (Kysely runs them in name order). */
export function migrationProvider(dialect: Dialect): MigrationProvider {
  return { getMigrations: async () => Object.fromEntries(ordered.map(([name, make]) => [name, make(dialect)])) };
}
