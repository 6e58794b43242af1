import type { AuthService } from './auth.js';
import type { AccountQueries } from './account-queries.js';
import type { Clock } from '../ports/clock.js';
import type { SendService } from './send-service.js';
import type { StatusQueries } from './status-queries.js';
import type { ReportQueries } from './report-queries.js';
import type { OtpService } from './otp-service.js';
import type { GroupService } from './group-service.js';
import type { BlocklistService } from './blocklist-service.js';
import type { ConsentService } from './consent-service.js';
import type { ResellerService } from './reseller-service.js';
import type { TemplateService } from './template-service.js';
import type { CampaignService } from './campaign-controls.js';
import type { ShortLinkService } from './short-link-service.js';

/** What endpoint handlers may use. Built in main.ts. */
export interface Services {
  clock: Clock;
  auth: AuthService;
  accounts: AccountQueries;
  sends: SendService;
  status: StatusQueries;
  reports: ReportQueries;
  otp: OtpService;
  groups: GroupService;
  blocklist: BlocklistService;
  consents: ConsentService;
  resellers: ResellerService;
  templates: TemplateService;
  campaigns: CampaignService;
  links: ShortLinkService;
}
