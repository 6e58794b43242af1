import { defineMessages } from '../../catalogue.js';

/** The audit log: the provider's search page, and the customer's own entries on the Account page. */
export const auditMessages = defineMessages(
  'provider-audit',
  {
    nav: 'Audit log',
    title: 'Audit log',
    intro:
      'Every change made in the panel (by customers and by the provider’s staff) or by a haberci admin command (actor cli), newest first. Passwords, keys, tokens and webhook secrets are never recorded.',
    accountField: 'Account number',
    actorField: 'Actor (email or cli)',
    actionField: 'Action (or its start, such as account.)',
    fromField: 'From date',
    toField: 'To date',
    search: 'Search',
    errAccount: 'Use an account number.',
    errDate: 'Use a date as YYYY-MM-DD.',
    none: 'No entry matches.',
  },
  {
    nav: 'Denetim kaydı',
    title: 'Denetim kaydı',
    intro:
      'Panelde (müşteriler ve sağlayıcı çalışanları tarafından) ya da haberci admin komutlarıyla (yapan: cli) yapılan her değişiklik, en yenisi önce. Parolalar, anahtarlar, jetonlar ve webhook gizli anahtarları asla kaydedilmez.',
    accountField: 'Hesap numarası',
    actorField: 'Yapan (e-posta ya da cli)',
    actionField: 'İşlem (ya da başı, örneğin account.)',
    fromField: 'Başlangıç tarihi',
    toField: 'Bitiş tarihi',
    search: 'Ara',
    errAccount: 'Bir hesap numarası kullanın.',
    errDate: 'Tarihi YYYY-AA-GG biçiminde yazın.',
    none: 'Eşleşen kayıt yok.',
  },
);
