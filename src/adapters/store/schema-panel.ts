/**
 * The tables of the panel's users and sessions, the audit log and İYS consents: part of the
 * one `Database` type of src/adapters/store/schema.ts, which extends these (kept apart only
 * for the file's length).
 */
import type { Generated } from 'kysely';

/** The panel's users (migration 0014). */
export interface PanelUsersTable {
  id: Generated<number>;
  account_id: number | null;
  email: string;
  password_hash: string | null;
  status: 'active' | 'disabled';
  created_at: number;
  password_changed_at: number | null;
}

/** The panel's tables (migration 0014 and after). */
export interface PanelTables {
  panel_users: PanelUsersTable;
  panel_sessions: { token_hash: string; user_id: number; created_at: number; last_seen_at: number };
  panel_sign_in_failures: { subject: string; window_start: number; failures: number };
  panel_password_tokens: { token_hash: string; user_id: number; expires_at: number; used_at: number | null };
  sender_id_reviews: { sender_id: number; reason: string; decided_at: number };
  key_last_used: { key_id: number; used_at: number };
}

/** The audit log (migration 0018). */
export interface AuditLogTable {
  id: Generated<number>;
  at: number;
  actor: string;
  actor_user_id: number | null;
  address: string | null;
  action: string;
  account_id: number | null;
  object_type: string | null;
  object_id: string | null;
  detail: string | null;
}

export interface IysConsentsTable {
  account_id: number;
  recipient_type: string;
  recipient: string;
  status: string;
  source: string;
  consent_date: number;
  recorded_at: number;
  sync_state: string;
  sync_attempts: number;
  sync_due_at: number | null;
  synced_at: number | null;
  sync_error: string | null;
}

export interface IysSettingsTable {
  account_id: number;
  iys_code: string;
  brand_code: string;
  url: string | null;
  username: string | null;
  password_secret: string | null;
  ret_words: string | null;
  refuse_text_rules: number;
  pull_cursor: string | null;
  updated_at: number;
}

/** Per account, a counter triggers move with every write of a consent in force (migration 0028). */
export interface IysConsentVersionsTable {
  account_id: number;
  n: number | string;
}

export interface IysConsentSyncCountsTable {
  account_id: number;
  sync_state: string;
  n: number | string;
}

export interface AuditTables {
  audit_log: AuditLogTable;
}

export interface IysTables {
  iys_consents: IysConsentsTable;
  iys_settings: IysSettingsTable;
  iys_consent_versions: IysConsentVersionsTable;
  iys_consent_sync_counts: IysConsentSyncCountsTable;
}
