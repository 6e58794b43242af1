import { defineMessages } from '../../catalogue.js';

export const providerOtpHoldMessages = defineMessages(
  'provider-otp-holds',
  {
    nav: 'OTP holds',
    title: 'OTP holds',
    intro:
      'Destination prefixes the OTP conversion watch holds for a key: few of its codes there were verified while their number rose (suspected SMS pumping). Codes to a held prefix are refused (TS-1096) and not charged. Release a hold once the customer is safe; the watch then judges the prefix on codes sent after the release.',
    none: 'No prefix is held.',
    colPrefix: 'Prefix',
    colAccount: 'Account',
    colKey: 'Key',
    colHeldAt: 'Held since',
    colCounts: 'When held',
    counts: (sent: number, verified: number, percent: number, previous: number) =>
      `${verified} of ${sent} codes verified (${percent}%); ${previous} the hour before`,
    colAction: 'Action',
    release: (prefix: string, key: number) => `Release +${prefix} for key ${key}`,
    released: (prefix: string) => `Released +${prefix}.`,
  },
  {
    nav: 'OTP durdurmaları',
    title: 'OTP durdurmaları',
    intro:
      'OTP dönüşüm izleyicisinin bir anahtar için durdurduğu hedef önekleri: kodlarının sayısı artarken azı doğrulandı (SMS pompalama şüphesi). Durdurulan öneke kodlar reddedilir (TS-1096) ve ücretlendirilmez. Müşteri güvende olduğunda durdurmayı kaldırın; izleyici öneki bundan sonra gönderilen kodlarla yeniden değerlendirir.',
    none: 'Durdurulan önek yok.',
    colPrefix: 'Önek',
    colAccount: 'Hesap',
    colKey: 'Anahtar',
    colHeldAt: 'Durdurulma',
    colCounts: 'Durdurulduğunda',
    counts: (sent: number, verified: number, percent: number, previous: number) =>
      `${sent} koddan ${verified} doğrulandı (%${percent}); önceki saatte ${previous}`,
    colAction: 'İşlem',
    release: (prefix: string, key: number) => `${key} numaralı anahtar için +${prefix} durdurmasını kaldır`,
    released: (prefix: string) => `+${prefix} durdurması kaldırıldı.`,
  },
);
