import type { Generated } from 'kysely';

/**
 * Tables of the store. Times are epoch milliseconds (bigint), booleans are 0/1 integers and
 * lists are JSON text, so that one set of queries runs on SQLite and PostgreSQL alike.
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
  created_at: number;
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
  status: 'approved' | 'pending' | 'rejected';
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

export interface Database {
  accounts: AccountsTable;
  ledger: LedgerTable;
  sender_ids: SenderIdsTable;
  api_keys: ApiKeysTable;
  key_usage: KeyUsageTable;
}
