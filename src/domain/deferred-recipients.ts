/**
 * The recipients of a bulk or scheduled send, kept as one compact list until the send is
 * due: numbers (normalised, de-duplicated) and, for sendMixed, the text of each.
 */
export interface DeferredRecipients {
  numbers: string[];
  /** texts[i] goes to numbers[i]; null when the send has one text. */
  texts: string[] | null;
  /**
   * A send with `short_links` 1: the short link base its texts' URLs are replaced under as
   * its messages are written out, each with links of its own (docs/decisions.md, "Short
   * links"); absent otherwise.
   */
  links?: string;
}

export function encodeRecipients(r: DeferredRecipients): string {
  return JSON.stringify({
    n: r.numbers,
    ...(r.texts === null ? {} : { t: r.texts }),
    ...(r.links === undefined ? {} : { l: r.links }),
  });
}

export function decodeRecipients(text: string): DeferredRecipients {
  const value = JSON.parse(text) as { n?: unknown; t?: unknown; l?: unknown };
  const numbers = Array.isArray(value.n) ? value.n.filter((x): x is string => typeof x === 'string') : [];
  const texts = Array.isArray(value.t) ? value.t.filter((x): x is string => typeof x === 'string') : null;
  return { numbers, texts, ...(typeof value.l === 'string' ? { links: value.l } : {}) };
}

/** /group/send: a number once, first-seen order kept. */
export function distinctNumbers(numbers: readonly string[]): string[] {
  return [...new Set(numbers)];
}

/** /group/sendMixed: an identical number-and-text pair once; different texts to one number are kept. */
export function distinctPairs(numbers: readonly string[], texts: readonly string[]): DeferredRecipients {
  const seen = new Set<string>();
  const out: DeferredRecipients = { numbers: [], texts: [] };
  numbers.forEach((n, i) => {
    const t = texts[i] ?? '';
    const key = `${n}\u0000${t}`;
    if (seen.has(key)) return;
    seen.add(key);
    out.numbers.push(n);
    out.texts?.push(t);
  });
  return out;
}
