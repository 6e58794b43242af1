/**
 * Links between the pages of a list paged by key (never by offset): back to the first page
 * when this is not it, and on to the next when there is one. Nothing when neither.
 */
import type { Lang } from '../catalogue.js';
import { kitText } from './text.js';

export function Pager(props: {
  lang: Lang;
  /** What the links page through, for screen readers. */
  label: string;
  next: string | null;
  first?: string | null;
  /** The next link's text, when not "Next page" (the ledger's "Older entries"). */
  nextText?: string;
}) {
  const t = kitText[props.lang];
  const first = props.first ?? null;
  if (props.next === null && first === null) return null;
  return (
    <nav aria-label={props.label} class="pager">
      {first !== null && <a href={first}>{t.firstPage}</a>}
      {props.next !== null && (
        <a href={props.next} rel="next">
          {props.nextText ?? t.nextPage}
        </a>
      )}
    </nav>
  );
}
