/**
 * A queue of sender ID requests waiting for a decision, shared by the provider's queue and
 * the reseller's: the notice of the last decision, each request with its account and the
 * decision's forms (SenderIdDecision), and the link to the next page.
 */
import type { FastifyRequest } from 'fastify';
import type { VNode } from 'preact';
import { Notice } from './fields.js';
import { Table } from './table.js';
import { Pager } from './pager.js';
import { SenderIdDecision } from './sender-id-decision.js';
import type { DecisionTexts, RefusedRejection } from './sender-id-decision.js';
import { cursorOf, queryOf } from './forms.js';
import { dateTime } from './format.js';
import type { PendingSenderId } from '../../ports/console-queries.js';
import type { Paged } from '../../services/panel/paged.js';

export interface QueueTexts extends DecisionTexts {
  title: string;
  intro: string;
  none: string;
  colTitle: string;
  colRequested: string;
  colDecision: string;
}

export interface SenderIdQueue {
  /** The queue's path: its pages, and its forms' `${base}/${id}/approve` and `/reject`. */
  base: string;
  texts: QueueTexts;
  /** The column of the account that asked, and the page of that account. */
  account: { header: string; href: (s: PendingSenderId) => string };
  /** The requests after the cursor (none: the first page), and the next page's cursor. */
  load(after: number | undefined): Promise<Paged<PendingSenderId>>;
  /** The notices the queue shows, by the `done` of its query (the query at hand). */
  notices(query: Record<string, string | undefined>): Record<string, string>;
}

/** The queue's page, to send; `refused`: a rejection without its reason, shown on its row (400). */
export async function senderIdQueuePage(
  request: FastifyRequest,
  queue: SenderIdQueue,
  refused?: RefusedRejection,
): Promise<{ title: string; status: number; body: VNode }> {
  const state = request.panel;
  const lang = state.lang;
  const t = queue.texts;
  const query = queryOf(request.query);
  const page = await queue.load(cursorOf(query.after));
  const notices = queue.notices(query);
  return {
    title: t.title,
    status: refused ? 400 : 200,
    body: (
      <>
        <Notice text={query.done === undefined ? undefined : notices[query.done]} />
        <p>{t.intro}</p>
        <Table<PendingSenderId>
          rows={page.items}
          rowKey={(s) => s.id}
          empty={t.none}
          columns={[
            { header: t.colTitle, rowHeader: true, cell: (s) => s.title },
            { header: queue.account.header, cell: (s) => <a href={queue.account.href(s)}>{s.accountName}</a> },
            { header: t.colRequested, cell: (s) => dateTime(s.createdAt, lang) },
            {
              header: t.colDecision,
              cell: (s) => <SenderIdDecision state={state} base={queue.base} request={s} texts={t} refused={refused} />,
            },
          ]}
        />
        <Pager lang={lang} label={t.title} next={page.next === null ? null : `${queue.base}?after=${page.next}`} />
      </>
    ),
  };
}
