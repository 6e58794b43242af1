import { defineMessages } from '../../catalogue.js';

/** The provider console's home page. */
export const providerHomeMessages = defineMessages(
  'provider-home',
  {
    title: 'Provider console',
    intro:
      'Run the service for your customers: their accounts and credit, the sender IDs they ask for, and the record of who changed what.',
    accounts: 'Accounts',
    accountsText:
      'Find an account, create one, suspend or reactivate it, top up or debit its credit and read its ledger.',
    senderIds: 'Sender ID requests',
    senderIdsText: (pending: string) => `Approve or reject the sender IDs customers requested. Waiting: ${pending}.`,
    otpHolds: 'OTP holds',
    otpHoldsText:
      'Destination prefixes held for suspected SMS pumping (few OTP codes verified while their number rose); release them.',
    audit: 'Audit log',
    auditText: 'Every change made in the panel or by a haberci admin command: who, when, what and from where.',
  },
  {
    title: 'Sağlayıcı konsolu',
    intro:
      'Hizmeti müşterileriniz için yönetin: hesapları ve bakiyeleri, istedikleri gönderici adları ve kimin neyi değiştirdiğinin kaydı.',
    accounts: 'Hesaplar',
    accountsText:
      'Bir hesabı bulun, hesap açın, askıya alın ya da yeniden etkinleştirin, bakiye yükleyin ya da düşün ve hesap hareketlerini okuyun.',
    senderIds: 'Gönderici adı istekleri',
    senderIdsText: (pending: string) =>
      `Müşterilerin istediği gönderici adlarını onaylayın ya da reddedin. Bekleyen: ${pending}.`,
    otpHolds: 'OTP durdurmaları',
    otpHoldsText:
      'SMS pompalama şüphesiyle durdurulan hedef önekleri (kodların sayısı artarken azı doğrulandı); durdurmayı kaldırın.',
    audit: 'Denetim kaydı',
    auditText: 'Panelde ya da haberci admin komutlarıyla yapılan her değişiklik: kim, ne zaman, ne ve nereden.',
  },
);
