import { defineMessages } from '../../catalogue.js';

export const resellerSenderIdMessages = defineMessages(
  'reseller-sender-ids',
  {
    nav: 'Customers’ sender IDs',
    title: 'Sender IDs your customers asked for',
    intro:
      'A customer’s sender ID waits for you first. Approved, it goes on to the provider’s review; rejected, the customer reads your reason.',
    none: 'No request is waiting for you.',
    colTitle: 'Sender ID',
    colCustomer: 'Customer',
    colRequested: 'Requested',
    colDecision: 'Decision',
    approve: (title: string) => `Approve ${title}`,
    reject: (title: string) => `Reject ${title}`,
    reasonLabel: (title: string) => `Reason for rejecting ${title}`,
    errReason: 'Say why, for the customer.',
    doneApproved: 'Approved: the request is now with the provider.',
    doneRejected: 'Rejected: the customer sees your reason.',
  },
  {
    nav: 'Müşteri gönderici adları',
    title: 'Müşterilerinizin istediği gönderici adları',
    intro:
      'Müşterinin gönderici adı önce sizin onayınızı bekler. Onaylarsanız sağlayıcının incelemesine geçer; reddederseniz müşteri gerekçenizi okur.',
    none: 'Onayınızı bekleyen istek yok.',
    colTitle: 'Gönderici adı',
    colCustomer: 'Müşteri',
    colRequested: 'İstenme',
    colDecision: 'Karar',
    approve: (title: string) => `${title} onayla`,
    reject: (title: string) => `${title} reddet`,
    reasonLabel: (title: string) => `${title} için ret gerekçesi`,
    errReason: 'Müşteri için gerekçe yazın.',
    doneApproved: 'Onaylandı: istek artık sağlayıcıda.',
    doneRejected: 'Reddedildi: müşteri gerekçenizi görür.',
  },
);
