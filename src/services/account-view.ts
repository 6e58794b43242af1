/** What admin commands and the consoles print of an account: the account's view, and its balances after a change. */
import type { Account } from '../ports/accounts.js';
import { sendDefaultsView, type SendDefaultsView } from '../domain/send-controls.js';

export interface AccountView {
  id: number;
  name: string;
  status: Account['status'];
  balance_main: number;
  balance_international: number;
  per_minute_limit: number;
  otp_brand: string;
  ip_allow: string[];
  global_sending: boolean;
  /** The account's weight in its share of the carrier (docs/smpp.md, "Lanes and shares"). */
  send_weight: number;
  created_at: string;
  /** Whether the account is a reseller, and the reseller that owns it (null: the provider's own). */
  reseller: boolean;
  parent_id: number | null;
  send_defaults: SendDefaultsView | null;
  /** Credit of a message that ends failed or expired is given back (docs/resellers.md). */
  refund_undelivered: boolean;
}

export function accountView(a: Account): AccountView {
  return {
    id: a.id,
    name: a.name,
    status: a.status,
    balance_main: a.balanceMain,
    balance_international: a.balanceInternational,
    per_minute_limit: a.perMinuteLimit,
    otp_brand: a.otpBrand,
    ip_allow: a.ipAllow,
    global_sending: a.globalSending,
    send_weight: a.sendWeight ?? 1,
    created_at: new Date(a.createdAt).toISOString(),
    reseller: a.reseller === true,
    parent_id: a.parentId ?? null,
    send_defaults: a.sendDefaults ? sendDefaultsView(a.sendDefaults) : null,
    refund_undelivered: a.refundUndelivered === true,
  };
}

/** What balance commands print: the account's two balances after the change. */
export interface BalancesView {
  id: number;
  balance_main: number;
  balance_international: number;
}
