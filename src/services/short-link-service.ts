import { randomBytes } from 'node:crypto';
import type { Clock } from '../ports/clock.js';
import type { Store } from '../ports/store.js';
import type { NewShortLink } from '../ports/link-store.js';
import type { SendPlan } from './send-plan.js';
import {
  isToken,
  maxLinksPerText,
  maxUrlLength,
  replaceUrls,
  tokenBytes,
  urlsOf,
  withStandInLinks,
} from '../domain/short-links.js';
import { textTooLong } from '../domain/sms-count.js';
import { fail, ok } from '../domain/result.js';
import type { Result } from '../domain/result.js';

/** The texts of a send with its URLs shortened, and the links to write with it. */
export interface Shortened {
  /** One text per number, each with its own links. */
  texts: string[];
  links: NewShortLink[];
}

/** Tokens drawn from the CSPRNG, many at a time (a 50,000-number send takes one call). */
function tokens(count: number): string[] {
  const bytes = randomBytes(count * tokenBytes);
  const out: string[] = [];
  for (let i = 0; i < count; i++) {
    let token = bytes.subarray(i * tokenBytes, (i + 1) * tokenBytes).toString('base64url');
    // A text's TS-L becomes a line break wherever it is read again: no token may hold one.
    while (token.includes('TS-L')) token = randomBytes(tokenBytes).toString('base64url');
    out.push(token);
  }
  return out;
}

/**
 * The texts of a bulk send's messages as they are written out (src/services/deferred-messages.ts):
 * each URL replaced by a link of its own under `base`, with the links to write with it. A
 * text met again (a send's one text, chunk after chunk) is cut at its URLs once, and tokens
 * are drawn from the CSPRNG a thousand at a time.
 */
export class LinkWriter {
  private cut: { text: string; pieces: string[]; urls: string[] } | null = null;
  private pool: string[] = [];

  constructor(private readonly base: string) {}

  linked(recipient: string, text: string): { text: string; links: NewShortLink[] } {
    if (text.includes('\u0000')) {
      // Not cut on the marker it holds itself: each URL replaced where it stands.
      const links: NewShortLink[] = [];
      const out = replaceUrls(text, (url) => {
        const token = this.token();
        links.push({ token, recipient, url });
        return `${this.base}/${token}`;
      });
      return { text: out, links };
    }
    if (this.cut?.text !== text) {
      const urls: string[] = [];
      const pieces = replaceUrls(text, (url) => {
        urls.push(url);
        return '\u0000';
      }).split('\u0000');
      this.cut = { text, pieces, urls };
    }
    const { pieces, urls } = this.cut;
    if (urls.length === 0) return { text, links: [] };
    let out = pieces[0] ?? '';
    const links: NewShortLink[] = [];
    for (let k = 0; k < urls.length; k++) {
      const token = this.token();
      const url = urls[k] ?? '';
      links.push({ token, recipient, url });
      out += `${this.base}/${token}${pieces[k + 1] ?? ''}`;
    }
    return { text: out, links };
  }

  private token(): string {
    if (this.pool.length === 0) this.pool = tokens(1000);
    return this.pool.pop() ?? '';
  }
}

/** Refused: more than 10 URLs in a text or a URL over 2,000 characters (TS-1033). */
function refusedUrls(urls: readonly string[]): Result<never> | null {
  if (urls.length > maxLinksPerText)
    return fail('TS-1033', { message: `short_links: at most ${maxLinksPerText} URLs in a text` });
  if (urls.some((u) => u.length > maxUrlLength))
    return fail('TS-1033', { message: `short_links: a URL is longer than ${maxUrlLength} characters` });
  return null;
}

/**
 * Short links with click tracking (docs/api.md, "Short links"): `short_links` 1 on a send
 * gives every URL of each recipient's text a link of its own under `--short-link-base`,
 * written with the send; a click redirects to the URL and is counted.
 */
export class ShortLinkService {
  constructor(
    private readonly store: Store,
    private readonly clock: Clock,
    /** `serve --short-link-base`, without a trailing slash; null: short links are off. */
    private readonly base: string | null,
    /** Tells the webhook courier an event was written (an sms.clicked). */
    private readonly eventWritten: () => void,
  ) {}

  /**
   * Each number's text with its URLs replaced by short links (counted in the SMS length, so
   * the cost answered is that of the texts sent). `texts`: one for all, or one per number.
   * Refused: short links not configured (TS-1033), a text with more than 10 URLs or a URL
   * over 2,000 characters (TS-1033), a text over 2,000 characters once shortened (TS-1026).
   */
  shorten(numbers: readonly string[], texts: string | readonly string[]): Result<Shortened> {
    if (this.base === null)
      return fail('TS-1033', { message: 'short_links: this server has no short link base (serve --short-link-base)' });
    const writer = new LinkWriter(this.base);
    const out: string[] = [];
    const links: NewShortLink[] = [];
    for (let i = 0; i < numbers.length; i++) {
      const recipient = numbers[i] ?? '';
      const text = typeof texts === 'string' ? texts : (texts[i] ?? '');
      // One text for all is checked once: every token has the same length.
      if (i === 0 || typeof texts !== 'string') {
        const refused = refusedUrls(urlsOf(text));
        if (refused) return refused;
      }
      const linked = writer.linked(recipient, text);
      if ((i === 0 || typeof texts !== 'string') && textTooLong(linked.text))
        return fail('TS-1026', {
          message: `The text for ${recipient} is longer than 2000 characters with its short links`,
        });
      out.push(linked.text);
      for (const link of linked.links) links.push(link);
    }
    return ok({ texts: out, links });
  }

  /**
   * A bulk send's short links, made as its messages are written out (each chunk's links
   * committed with its messages), not in the send's transaction: its texts checked here as
   * `shorten` checks them, the base to keep with its list returned. `texts`: one for all, or
   * one per number.
   */
  later(texts: string | readonly string[]): Result<string> {
    if (this.base === null)
      return fail('TS-1033', { message: 'short_links: this server has no short link base (serve --short-link-base)' });
    for (const text of typeof texts === 'string' ? [texts] : texts) {
      const refused = refusedUrls(urlsOf(text));
      if (refused) return refused;
      if (textTooLong(withStandInLinks(text, this.base)))
        return fail('TS-1026', { message: 'A text is longer than 2000 characters with its short links' });
    }
    return ok(this.base);
  }

  /** The send's writes of its links, committed with it (SendPlan.alongside). */
  alongside(accountId: number, links: readonly NewShortLink[]): NonNullable<SendPlan['alongside']> {
    return (store, sendId) => store.links.insert(accountId, sendId, links, this.clock.now());
  }

  /** Where a token leads, the click recorded; null for a token that is not a live link. */
  async follow(token: string): Promise<string | null> {
    if (!isToken(token)) return null;
    const click = await this.store.links.click(token, this.clock.now());
    if (click?.event) this.eventWritten();
    return click?.url ?? null;
  }

  /** /reports/basic: a send's clicks and the recipients who clicked. */
  sendClicks(sendId: number): Promise<{ clicks: number; clickers: number }> {
    return this.store.links.sendClicks(sendId);
  }

  /** /reports/detailed: each recipient's links (as sent) and clicks, for a send with short links. */
  async recipientLinks(
    sendId: number,
    recipients: readonly string[],
  ): Promise<Map<string, { short_links: string[]; clicks: number }>> {
    const found = await this.store.links.recipientLinks(sendId, recipients);
    const base = this.base ?? '';
    return new Map(
      [...found].map(([recipient, l]) => [
        recipient,
        { short_links: l.links.map((t) => `${base}/${t}`), clicks: l.clicks },
      ]),
    );
  }
}
