import { defineMessages } from '../../catalogue.js';

/** The provider console's queue of requested sender IDs. */
export const providerSenderIdMessages = defineMessages(
  'provider-sender-ids',
  {
    nav: 'Sender ID requests',
    title: 'Sender ID requests',
    intro:
      'Sender IDs customers requested in their panel, oldest first. An approved sender ID can be sent from at once; a rejected one shows the customer your reason.',
    none: 'No sender ID is waiting for a decision.',
    colTitle: 'Sender ID',
    colAccount: 'Account',
    colRequested: 'Requested',
    colDecision: 'Decision',
    approve: (title: string) => `Approve ${title}`,
    reasonLabel: (title: string) => `Reason for rejecting ${title}`,
    reject: (title: string) => `Reject ${title}`,
    errReason: 'Give a reason: the customer sees it.',
    doneApproved: (title: string) => `${title} is approved: the account can send from it now.`,
    doneRejected: (title: string) => `${title} is rejected.`,
    alreadyReviewed:
      'That request was already decided (by someone else, or on another page); the list below is current.',
  },
  {
    nav: 'Gönderici adı istekleri',
    title: 'Gönderici adı istekleri',
    intro:
      'Müşterilerin panelden istediği gönderici adları, en eskisi önce. Onaylanan gönderici adıyla hemen gönderilebilir; reddedilende müşteri gerekçenizi görür.',
    none: 'Karar bekleyen gönderici adı yok.',
    colTitle: 'Gönderici adı',
    colAccount: 'Hesap',
    colRequested: 'İstenme',
    colDecision: 'Karar',
    approve: (title: string) => `${title} onayla`,
    reasonLabel: (title: string) => `${title} için ret gerekçesi`,
    reject: (title: string) => `${title} reddet`,
    errReason: 'Bir gerekçe yazın: müşteri bunu görür.',
    doneApproved: (title: string) => `${title} onaylandı: hesap artık bu adla gönderebilir.`,
    doneRejected: (title: string) => `${title} reddedildi.`,
    alreadyReviewed:
      'Bu istek zaten karara bağlanmış (başka biri ya da başka bir sayfa tarafından); aşağıdaki liste günceldir.',
  },
);
