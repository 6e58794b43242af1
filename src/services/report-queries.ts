import { reasonOfDetail } from '../domain/iys.js';
import type { ReportStore, SendRecord, StateCount } from '../ports/reports.js';
import { reportStatus, summaryBucket } from '../domain/delivery-state.js';
import { localDate, localDateTime, localTime } from '../domain/istanbul-time.js';
import { fail, ok } from '../domain/result.js';
import type { Result } from '../domain/result.js';
import type { ShortLinkService } from './short-link-service.js';

export const recordsPerPage = 500;

/** Sends that have a report: group sends and scheduled /sms/send (whose sms_id is the report id). */
function isReport(send: SendRecord): boolean {
  return send.kind === 'group' || send.kind === 'mixed' || (send.kind === 'sms' && send.scheduledAt !== null);
}

/** The processing state in words (docs/decisions.md lists the texts). */
export function reportStatusText(
  send: SendRecord,
  counts: { success: number; failed: number; pending: number; submitted: number },
  now: number,
): string {
  if (send.control === 'cancelled')
    return counts.pending === 0 ? 'Cancelled' : 'Cancelled: waiting for the reports of what was sent';
  if (send.control === 'paused') return 'Paused: waiting to be resumed';
  // Before its time: a list not written out yet, or (a scheduled submit_sm over SMPP) its
  // message written at acceptance and waiting, queued, for the time.
  const untouched = counts.submitted + counts.success + counts.failed === 0;
  if (send.expandedCount === 0 && send.scheduledAt !== null && send.scheduledAt > now && (send.pending || untouched))
    return 'Scheduled: waiting for the scheduled time';
  if (counts.pending === 0) return 'Completed';
  if (counts.submitted === 0 && counts.success + counts.failed === 0) return 'Queued: waiting to be sent';
  if (send.pending || counts.submitted + counts.success + counts.failed < send.totalNumbers) return 'Sending';
  return 'Sent: waiting for delivery reports';
}

function tally(
  send: SendRecord,
  rows: readonly StateCount[],
): { success: number; failed: number; cancelled: number; pending: number; submitted: number; lastChange: number } {
  let success = 0;
  let failed = 0;
  let cancelled = 0;
  let submitted = 0;
  let lastChange = send.updatedAt;
  for (const r of rows) {
    const bucket = summaryBucket(r.state);
    if (bucket === 'success') success += r.count;
    else if (bucket === 'failed') failed += r.count;
    else if (bucket === 'cancelled') cancelled += r.count;
    if (r.state === 'sent') submitted += r.count;
    if (r.lastChange !== null && r.lastChange > lastChange) lastChange = r.lastChange;
  }
  // Recipients not yet written out as messages are pending too, so the counters add up to
  // total_numbers at every moment.
  return {
    success,
    failed,
    cancelled,
    pending: send.totalNumbers - success - failed - cancelled,
    submitted,
    lastChange,
  };
}

/** /reports/basic and /reports/detailed. */
export class ReportQueries {
  constructor(
    private readonly messages: ReportStore,
    private readonly now: () => number,
    private readonly links: Pick<ShortLinkService, 'sendClicks' | 'recipientLinks'>,
  ) {}

  private async report(accountId: number, raporId: number): Promise<SendRecord | null> {
    const send = await this.messages.findSend(raporId, accountId);
    return send && isReport(send) ? send : null;
  }

  async summary(accountId: number, raporId: number): Promise<Result<Record<string, unknown>>> {
    const send = await this.report(accountId, raporId);
    if (!send) return fail('TS-1029', { variant: 'not-found', message: 'Report not found' });
    const t = tally(send, await this.messages.sendCounters(send.id));
    const clicks = await this.links.sendClicks(send.id);
    return ok({
      rapor_id: send.id,
      total_numbers: send.totalNumbers,
      success_count: t.success,
      failed_count: t.failed,
      pending_count: t.pending,
      cancelled_count: t.cancelled,
      details: {
        sending_date: localDate(send.createdAt),
        sending_time: localTime(send.createdAt),
        report_status: reportStatusText(send, t, this.now()),
        sms_sender_id: send.sender,
        invalid_numbers: send.invalidNumbers,
        blocked_numbers: send.blockedNumbers,
        last_update: localDateTime(t.lastChange),
        ...(send.iysSkipped === null ? {} : { iys_skipped: send.iysSkipped }),
      },
      // Additions to v4 (short links): 0 for a send without them.
      clicks: clicks.clicks,
      unique_clickers: clicks.clickers,
    });
  }

  async page(accountId: number, raporId: number, page: number): Promise<Result<Record<string, unknown>>> {
    const send = await this.report(accountId, raporId);
    if (!send) return fail('TS-1029', { variant: 'not-found', message: 'Report not found' });
    const totalRecords = send.expandedCount;
    const totalPages = Math.ceil(totalRecords / recordsPerPage);
    const rows =
      page > totalPages ? [] : await this.messages.sendMessages(send.id, (page - 1) * recordsPerPage, recordsPerPage);
    const links = await this.links.recipientLinks(
      send.id,
      rows.map((r) => r.recipient),
    );
    return ok({
      data: rows.map((r) => {
        const status = reportStatus(r.state);
        const reason = reasonOfDetail(r.detail);
        return {
          phone_number: r.recipient,
          // Submitted time, or the time the message was recorded while it waits to be sent.
          sent_at: localDateTime(r.submittedAt ?? r.createdAt),
          sms_status: status.text,
          details: {
            done_at: r.doneAt === null ? '' : localDateTime(r.doneAt),
            status_code: status.statusCode,
            operator: r.operator,
            ...(reason === null ? {} : { reason }),
          },
          // A send with short links: the links this recipient got, and their clicks.
          ...(links.get(r.recipient) ?? {}),
          // Credit given back for this message, once (docs/resellers.md, "Refunds").
          ...(r.refunded > 0 ? { refunded: r.refunded } : {}),
        };
      }),
      pagination: {
        current_page: page,
        total_pages: totalPages,
        total_records: totalRecords,
        records_per_page: recordsPerPage,
      },
    });
  }
}
