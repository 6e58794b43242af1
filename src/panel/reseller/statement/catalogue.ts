import { defineMessages } from '../../catalogue.js';

export const resellerStatementMessages = defineMessages(
  'reseller-statement',
  {
    nav: 'Customers’ statements',
    title: 'Statements: yours and your customers’',
    intro: 'Your account’s month first, then each of your customers’.',
  },
  {
    nav: 'Müşteri dökümleri',
    title: 'Dökümler: sizinki ve müşterilerinizinki',
    intro: 'Önce hesabınızın ayı, ardından her müşterinizinki.',
  },
);
