/**
 * The part of a live console page that htmx fetches again every 3 s (from its path and `/live`) and
 * puts in its own place, headed by the time of its figures; screen readers hear it change.
 */
import type { ComponentChildren } from 'preact';
import type { Lang } from '../catalogue.js';
import { dateTime } from '../kit/format.js';

export function LiveSection(props: {
  /** The page's name: its path is `/panel/provider/${name}`, its ids start `${name}-`. */
  name: string;
  lang: Lang;
  /** The figures' time (epoch ms). */
  at: number;
  heading: (time: string) => string;
  children: ComponentChildren;
}) {
  const { name } = props;
  return (
    <section
      id={`${name}-live`}
      aria-labelledby={`${name}-now`}
      aria-live="polite"
      hx-get={`/panel/provider/${name}/live`}
      hx-trigger="every 3s"
      hx-swap="outerHTML"
    >
      <h2 id={`${name}-now`}>{props.heading(dateTime(props.at, props.lang, 'second'))}</h2>
      {props.children}
    </section>
  );
}
