import { defineMessages } from '../../catalogue.js';

export const accountStatementMessages = defineMessages(
  'account-statement',
  { nav: 'Statement', title: 'Monthly statement' },
  { nav: 'Döküm', title: 'Aylık döküm' },
);
