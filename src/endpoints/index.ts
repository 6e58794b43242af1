import type { Endpoint } from './endpoint.js';
import { authPostCheck } from './auth.post.check.js';
import { balance } from './balance.js';
import { blacklistPostAdd } from './blacklist.post.add.js';
import { blacklistPostStatus } from './blacklist.post.status.js';
import { contactsAdd } from './contacts.add.js';
import { groupsCreate } from './groups.create.js';
import { groupsDelete } from './groups.delete.js';
import { groupsEdit } from './groups.edit.js';
import { groupsList } from './groups.list.js';
import { otpDetailed } from './otp.detailed.js';
import { otpSend } from './otp.send.js';
import { otpVerify } from './otp.verify.js';
import { senderidCheck } from './senderid.check.js';
import { smsSend } from './sms.send.js';
import { smsStatus } from './sms.status.js';
import { groupSend } from './group.send.js';
import { groupSendMixed } from './group.sendMixed.js';
import { reportsBasic } from './reports.basic.js';
import { reportsDetailed } from './reports.detailed.js';
import { iysConsentAdd } from './iys.consent.add.js';
import { iysConsentStatus } from './iys.consent.status.js';
import { templatesCreate } from './templates.create.js';
import { templatesList } from './templates.list.js';
import { templatesDelete } from './templates.delete.js';
import { subaccountsCreate } from './subaccounts.create.js';
import { subaccountsList } from './subaccounts.list.js';
import { subaccountsFund } from './subaccounts.fund.js';
import { subaccountsStatus } from './subaccounts.status.js';
import { subaccountsUsage } from './subaccounts.usage.js';
import { subaccountsUpdate } from './subaccounts.update.js';
import { smsCancel } from './sms.cancel.js';
import { groupCancel } from './group.cancel.js';
import { groupPause } from './group.pause.js';
import { groupResume } from './group.resume.js';

/** The endpoint table: routing, auth, validation and the shared tests are built from it. */
export const endpoints: readonly Endpoint[] = [
  authPostCheck,
  balance,
  senderidCheck,
  smsSend,
  smsStatus,
  otpSend,
  otpDetailed,
  otpVerify,
  groupsCreate,
  groupsEdit,
  groupsDelete,
  groupsList,
  contactsAdd,
  blacklistPostAdd,
  blacklistPostStatus,
  groupSend,
  groupSendMixed,
  reportsBasic,
  reportsDetailed,
  iysConsentAdd,
  iysConsentStatus,
  templatesCreate,
  templatesList,
  templatesDelete,
  subaccountsCreate,
  subaccountsList,
  subaccountsFund,
  subaccountsStatus,
  subaccountsUsage,
  subaccountsUpdate,
  smsCancel,
  groupCancel,
  groupPause,
  groupResume,
];
