import type { AuditTables, IysTables, PanelTables } from './schema-panel.js';
import type { Generated } from 'kysely';
import type { DeliveryState } from '../../domain/delivery-state.js';
import type { SenderId } from '../../ports/sender-ids.js';

/**
 * Tables of the store. Times are epoch milliseconds (bigint), booleans are 0/1 integers and
 * lists are JSON text, so that one set of queries runs on SQLite and PostgreSQL alike.
 * One file, long because it is Kysely's one `Database` type: every table's row, in one place
 * that the migrations and the parts are read against (the panel's, the audit log's and
 * İYS's tables in schema-panel.ts, which `Database` extends; no part casts to a schema of
 * its own).
 */
export interface AccountsTable {
  id: Generated<number>;
  name: string;
  status: 'Active' | 'Suspended';
  balance_main: number;
  balance_international: number;
  per_minute_limit: number;
  otp_brand: string;
  ip_allow: string;
  global_sending: number;
  /** An account's weight in its share of the carrier (migration 0033). */
  send_weight: Generated<number>;
  created_at: number;
  /** 1: a reseller, which may own customer accounts (migration 0045). */
  reseller: Generated<number>;
  /** The reseller that owns this customer account; null: the provider's own (migration 0045). */
  parent_id: number | null;
  /** The account's send window, speed and validity defaults as JSON; null: none (migration 0059). */
  send_defaults: Generated<string | null>;
  /** 1: credit of a message that ends failed or expired is given back (migration 0060). */
  refund_undelivered: Generated<number>;
}

export interface LedgerTable {
  id: Generated<number>;
  account_id: number;
  bucket: 'main' | 'international';
  delta: number;
  balance_after: number;
  reason: string;
  reference: string | null;
  created_at: number;
}

export interface SenderIdsTable {
  id: Generated<number>;
  account_id: number;
  title: string;
  status: SenderId['status'];
  created_at: number;
}

export interface ApiKeysTable {
  id: Generated<number>;
  account_id: number;
  key_hash: string;
  key_hint: string;
  state: 'Active' | 'Paused' | 'Revoked';
  permissions: string;
  ip_allow: string;
  hourly_limit: number;
  daily_limit: number;
  monthly_limit: number;
  expires_on: string | null;
  valid_until: number | null;
  replaced_by: number | null;
  webhook_url: string | null;
  webhook_secret: string | null;
  webhook_attempts: number;
  /** Comma-separated event types the webhook takes; null: every event. */
  webhook_events: string | null;
  /** Delays between attempts in milliseconds, comma-separated; null: the default schedule. */
  webhook_retry_schedule: string | null;
  /** Events a webhook request carries at most (1: one event a request, as a single body). */
  webhook_batch: Generated<number>;
  /** How long a bucket that is not full waits for more events, in milliseconds. */
  webhook_batch_wait_ms: Generated<number>;
  sandbox: number;
  created_at: number;
  updated_at: number;
}

export interface KeyUsageTable {
  key_id: number;
  hour_bucket: string;
  hour_count: number;
  day_bucket: string;
  day_count: number;
  month_bucket: string;
  month_count: number;
}

export interface IdCounterTable {
  name: string;
  next_id: number;
}

export interface SendsTable {
  id: number;
  account_id: number;
  key_id: number;
  kind: 'sms' | 'group' | 'mixed' | 'otp';
  sender: string;
  text: string | null;
  lang: number;
  content_type: number;
  scheduled_at: number | null;
  sandbox: number;
  total_numbers: number;
  invalid_numbers: number;
  blocked_numbers: number;
  sms_cost: number;
  pending_recipients: string | null;
  expanded_count: number;
  expand_lease_until: number | null;
  priority: number;
  created_at: number;
  updated_at: number;
  /** A commercial send's CommercialTally as JSON (migration 0024). */
  iys: string | null;
  /** Null while it runs; paused or cancelled by its customer (migration 0057). */
  control: Generated<'paused' | 'cancelled' | null>;
  /** The send's window (JSON of minutes and weekdays), speed, the end of its validity, and its pace (migration 0059). */
  send_window: Generated<string | null>;
  speed: Generated<number | null>;
  valid_until: Generated<number | null>;
  pace_next_at: Generated<number | null>;
  /** 1 for a send made with `short_links` 1, its links made or still to be (migration 0065). */
  short_links: Generated<number>;
}

/** A send whose cancel is still being settled, with the credit given back ahead (migration 0063). */
export interface CancelSettlementsTable {
  send_id: number;
  account_id: number;
  prepaid_main: number;
  prepaid_international: number;
  created_at: number;
}

/** Credit given back, once per key (migration 0057; docs/decisions.md, "Campaign controls"). */
export interface RefundsTable {
  refund_key: string;
  account_id: number;
  bucket: 'main' | 'international';
  amount: number;
  reason: string;
  created_at: number;
}

export interface MessagesTable {
  id: number;
  send_id: number;
  account_id: number;
  key_id: number;
  recipient: string;
  text: string | null;
  sms_count: number;
  operator: string;
  state: DeliveryState;
  priority: number;
  due_at: number;
  lease_until: number | null;
  attempts: number;
  carrier: string | null;
  submitted_at: number | null;
  done_at: number | null;
  detail: string | null;
  sandbox: number;
  created_at: number;
}

export interface MessagePartsTable {
  carrier_message_id: string;
  message_id: number;
  part_no: number;
  state: 'sent' | 'delivered' | 'failed' | 'expired';
  detail: string | null;
  done_at: number | null;
}

export interface UnmatchedReceiptsTable {
  carrier_message_id: string;
  state: 'delivered' | 'failed' | 'expired';
  detail: string | null;
  done_at: number | null;
  received_at: number;
}

export interface IdempotencyKeysTable {
  account_id: number;
  idem_key: string;
  request_hash: string;
  response: string;
  created_at: number;
}

export interface ContactGroupsTable {
  id: Generated<number>;
  account_id: number;
  name: string;
  created_at: number;
}

export interface ContactsTable {
  group_id: number;
  number: string;
  created_at: number;
}

export interface BlockedNumbersTable {
  account_id: number;
  /** The last ten digits: the blocking list compares numbers by them. */
  subscriber: string;
  number: string;
  created_at: number;
}

export type WebhookEventState = 'pending' | 'delivered' | 'failed';

export interface WebhookEventsTable {
  /** JSON of additive `data` fields, or null. */
  data: string | null;
  id: Generated<number>;
  event_id: string;
  key_id: number;
  event_type: string;
  sms_id: number | null;
  status: string | null;
  state: WebhookEventState;
  attempts: number;
  next_attempt_at: number;
  lease_until: number | null;
  created_at: number;
  done_at: number | null;
}

export interface WebhookAttemptsTable {
  id: Generated<number>;
  event_ref: number;
  attempt_no: number;
  manual: number;
  url: string | null;
  started_at: number;
  duration_ms: number;
  http_status: number | null;
  error: string | null;
}

export interface InboundRoutesTable {
  destination: string;
  account_id: number;
  created_at: number;
}

export interface InboundMessagesTable {
  id: number;
  account_id: number | null;
  source: string;
  destination: string;
  text: string;
  received_at: number;
}

/** The panel's rollups (migration 0015), kept by the store's writes (messages/rollups.ts) since 0016. */
export interface DailyCountsTable {
  account_id: number;
  day: number;
  messages: number;
  sms: number;
  delivered: number;
  failed: number;
}

export interface SendCountsTable {
  send_id: number;
  messages: number;
  sms: number;
  delivered: number;
  failed: number;
}

/** The sums a transaction adds to the rollups, waiting for the deriver (migration 0035, messages/rollups.ts). */
export interface CountDeltasTable {
  id: Generated<number>;
  /**
   * JSON: `{ "d": [[account_id, day, messages, sms, delivered, failed], ...], "s": [[send_id,
   * messages, sms, delivered, failed], ...], "m": [[send_id, lowest id, highest id], ...] }`
   * (`m`: the messages inserted, for `message_numbers`; absent when none were).
   */
  deltas: string;
}

/** The panel's number search (migration 0035): an account's messages by number, written by the deriver. */
export interface MessageNumbersTable {
  account_id: number;
  recipient: string;
  created_at: number;
  message_id: number;
}

/** One row per derivation after the commit (migration 0035): locked while it runs, and what it did last. */
export interface DerivationsTable {
  name: string;
  derived_rows: number;
  derived_at: number;
}

/** One thread's messages by step in one minute (migration 0017). */
export interface TrafficMinutesTable {
  minute: number;
  source: string;
  accepted: number;
  submitted: number;
  delivered: number;
  failed: number;
  expired: number;
}

export interface SmppUsersTable {
  id: Generated<number>;
  key_id: number;
  account_id: number;
  system_id: string;
  password_hash: string;
  max_binds: number;
  window_size: number;
  max_submits_per_second: number;
  disabled_at: number | null;
  created_at: number;
}

/** Migration 0058: a consequence of a commit, written in it, until a consumer carries it out. */
export interface OutboxTable {
  id: Generated<number>;
  kind: string;
  owner_id: number;
  subject: string;
  ref_id: number | null;
  source_addr: string | null;
  recipient: string | null;
  failed_at: number | null;
  created_at: number;
  holder: string | null;
  lease_until: Generated<number>;
}

/** Migration 0030: an unfinished concatenated message and how many of its parts arrived. */
export interface SmppAssembliesTable {
  smpp_user_id: number;
  assembly_key: string;
  parts: number;
  started_at: number;
}

/** Migration 0030: one part of an unfinished concatenated message. */
/** A session bound to a process of the cluster, while that process renews its lease (migration 0032). */
export interface SmppBindsTable {
  session_id: string;
  smpp_user_id: number;
  account_id: number;
  system_id: string;
  process: string;
  peer: string;
  bind_type: string;
  bound_at: number;
  expires_at: number;
}

/** A place of an SMPP carrier connection's binds, held by one process while it renews it (migration 0034). */
export interface CarrierBindsTable {
  connection: string;
  slot: number;
  owner: string;
  bound_at: number;
  expires_at: number;
}

/** A carrier connection's last rate cut for the whole cluster (migration 0034). */
export interface CarrierRatesTable {
  connection: string;
  rate: number;
  cut_at: number;
}

export interface SmppAssemblyPartsTable {
  smpp_user_id: number;
  assembly_key: string;
  seq: number;
  total: number;
  source_addr: string;
  destination: string;
  data_coding: number;
  payload_hex: string;
  turkish: number;
  part_id: string;
  receipt: number;
  received_at: number;
  /** The part's schedule_delivery_time (migration 0039); null: none. */
  scheduled_at: number | null;
}

/** Migration 0026: an OTP message's code, as a keyed hash, and its tries. */
export interface OtpCodesTable {
  message_id: number;
  account_id: number;
  key_id: number;
  sandbox: number;
  destination: string;
  prefix: string;
  code_hash: string;
  sealed_text: string | null;
  created_at: number;
  expires_at: number;
  max_tries: number;
  tries: Generated<number>;
  verified_at: number | null;
}

export interface OtpSecretTable {
  id: number;
  secret: string;
}

export interface OtpSettingsTable {
  key_id: number;
  validity_s: number | null;
  max_tries: number | null;
  countries: string | null;
  per_number_hour: number | null;
  per_number_day: number | null;
  per_prefix_minute: number | null;
  cooldown_s: number | null;
  /** Migration 0029: the conversion watch's thresholds. */
  watch_min_sent: number | null;
  watch_min_share: number | null;
  watch_rise: number | null;
  /** Migration 0038: the rise rule's thresholds. */
  prefix_rise: number | null;
  prefix_rise_min: number | null;
  updated_at: number;
}

export interface OtpRefusalsTable {
  key_id: number;
  account_id: number;
  at: number;
  reason: string;
  destination: string;
}

/** Migration 0029 (made again): a destination prefix the conversion watch holds for a key. */
export interface OtpHoldsTable {
  key_id: number;
  prefix: string;
  held_at: number;
  account_id: number;
  sent: number;
  verified: number;
  previous_sent: number;
  released_at: number | null;
}

/** Migration 0038: the rise rule's history of a key's codes to one prefix (domain/otp-prefix-rate.ts). */
export interface OtpPrefixRatesTable {
  key_id: number;
  prefix: string;
  /** Unix minutes (epoch ms / 60,000). */
  minute: number;
  codes: number;
  baseline: number;
}

/** Migration 0038: the provider's narrowing of an account's OTP countries. */
export interface OtpAccountSettingsTable {
  account_id: number;
  /** Calling codes, comma-separated; null: every country. */
  countries: string | null;
  updated_at: number;
}

export interface TemplatesTable {
  id: Generated<number>;
  account_id: number;
  name: string;
  text: string;
  created_at: number;
}

export interface ContactFieldsTable {
  account_id: number;
  number: string;
  /** JSON: the field names and their text values. */
  fields: string;
  updated_at: number;
}

export interface ShortLinksTable {
  token: string;
  account_id: number;
  send_id: number;
  recipient: string;
  url: string;
  created_at: number;
  clicks: Generated<number>;
  first_clicked_at: number | null;
}

export interface LinkClicksTable {
  id: Generated<number>;
  send_id: number;
  token: string;
  clicked_at: number;
}

/** Migration 0064: a reseller's brand (white label). */
export interface BrandsTable {
  account_id: number;
  name: string;
  /** Lower-cased, unique; null until the provider sets it. */
  host: string | null;
  /** #rrggbb */
  color: string | null;
  support: string | null;
  /** Base64 of the logo's bytes. */
  logo: string | null;
  logo_type: string | null;
  updated_at: number;
}

export interface Database extends PanelTables, AuditTables, IysTables {
  brands: BrandsTable;
  short_links: ShortLinksTable;
  link_clicks: LinkClicksTable;
  templates: TemplatesTable;
  contact_fields: ContactFieldsTable;
  smpp_users: SmppUsersTable;
  outbox: OutboxTable;
  smpp_assemblies: SmppAssembliesTable;
  smpp_assembly_parts: SmppAssemblyPartsTable;
  smpp_binds: SmppBindsTable;
  carrier_binds: CarrierBindsTable;
  carrier_rates: CarrierRatesTable;
  otp_codes: OtpCodesTable;
  otp_secret: OtpSecretTable;
  otp_settings: OtpSettingsTable;
  otp_refusals: OtpRefusalsTable;
  otp_holds: OtpHoldsTable;
  otp_prefix_rates: OtpPrefixRatesTable;
  otp_account_settings: OtpAccountSettingsTable;
  traffic_minutes: TrafficMinutesTable;
  inbound_routes: InboundRoutesTable;
  inbound_messages: InboundMessagesTable;
  webhook_events: WebhookEventsTable;
  webhook_attempts: WebhookAttemptsTable;
  id_counter: IdCounterTable;
  sends: SendsTable;
  messages: MessagesTable;
  daily_counts: DailyCountsTable;
  send_counts: SendCountsTable;
  count_deltas: CountDeltasTable;
  derivations: DerivationsTable;
  message_numbers: MessageNumbersTable;
  message_parts: MessagePartsTable;
  unmatched_reports: UnmatchedReceiptsTable;
  idempotency_keys: IdempotencyKeysTable;
  accounts: AccountsTable;
  ledger: LedgerTable;
  refunds: RefundsTable;
  cancel_settlements: CancelSettlementsTable;
  sender_ids: SenderIdsTable;
  api_keys: ApiKeysTable;
  key_usage: KeyUsageTable;
  contact_groups: ContactGroupsTable;
  contacts: ContactsTable;
  blocked_numbers: BlockedNumbersTable;
}
