import { defineMessages } from '../../catalogue.js';

export const senderIdMessages = defineMessages(
  'sender-ids',
  {
    nav: 'Sender IDs',
    title: 'Sender IDs',
    intro:
      'Messages are sent from an approved sender ID. A requested sender ID is pending until the provider approves it.',
    none: 'This account has no sender IDs yet.',
    colTitle: 'Sender ID',
    colState: 'State',
    colRequested: 'Requested',
    colReason: 'Reason for rejection',
    approved: 'Approved',
    pending: 'Pending approval',
    rejected: 'Rejected',
    awaitingReseller: 'Waiting for your reseller',
    request: 'Request a sender ID',
    field: 'Sender ID',
    hint: 'At most 11 characters, Turkish letters (ç ğ ı ö ş ü) counting as two: letters, digits, space and . - _ & + (no space at either end).',
    submit: 'Request sender ID',
    requested: 'Requested. It stays pending until the provider approves it.',
    errInvalid:
      'Use at most 11 characters, Turkish letters counting as two: letters, digits, space and . - _ & +, with a letter or digit and no space at either end.',
    errTaken: 'This account already has this sender ID.',
  },
  {
    nav: 'Gönderici adları',
    title: 'Gönderici adları',
    intro:
      'Mesajlar onaylı bir gönderici adıyla gönderilir. İstenen gönderici adı, sağlayıcı onaylayana kadar beklemede kalır.',
    none: 'Bu hesabın henüz gönderici adı yok.',
    colTitle: 'Gönderici adı',
    colState: 'Durum',
    colRequested: 'İstenme',
    colReason: 'Ret gerekçesi',
    approved: 'Onaylandı',
    pending: 'Onay bekliyor',
    rejected: 'Reddedildi',
    awaitingReseller: 'Bayinizin onayını bekliyor',
    request: 'Gönderici adı iste',
    field: 'Gönderici adı',
    hint: 'En fazla 11 karakter, Türkçe harfler (ç ğ ı ö ş ü) iki sayılır: harfler, rakamlar, boşluk ve . - _ & + (başta ve sonda boşluk olmadan).',
    submit: 'Gönderici adı iste',
    requested: 'İstendi. Sağlayıcı onaylayana kadar beklemede kalır.',
    errInvalid:
      'En fazla 11 karakter kullanın (Türkçe harfler iki sayılır): harfler, rakamlar, boşluk ve . - _ & +; en az bir harf ya da rakam olsun, başta ve sonda boşluk olmasın.',
    errTaken: 'Bu hesapta bu gönderici adı zaten var.',
  },
);
