/**
 * The message catalogue's mechanism. Each page area keeps its strings in a module of its
 * own (a catalogue.ts beside its pages) made with defineMessages: the Turkish half must have
 * exactly the English half's keys, with the same parameters (the compiler refuses
 * otherwise), so two people adding strings never edit the same file.
 */
export const languages = ['en', 'tr'] as const;
export type Lang = (typeof languages)[number];

export type Message = string | ((...args: never[]) => string);

/** The Turkish half's type: the English keys, strings as strings, functions with the same parameters. */
export type Translation<E> = {
  [K in keyof E]: E[K] extends (...args: infer A) => string ? (...args: A) => string : string;
};

export type Catalogue<E> = Record<Lang, Translation<E>>;

/** Every catalogue made, by name: the test that both halves match walks this list. */
export const allCatalogues = new Map<string, Catalogue<Record<string, Message>>>();

export function defineMessages<E extends Record<string, Message>>(
  name: string,
  en: E,
  tr: Translation<E>,
): Catalogue<E> {
  const catalogue: Catalogue<E> = { en: en as unknown as Translation<E>, tr };
  allCatalogues.set(name, catalogue as unknown as Catalogue<Record<string, Message>>);
  return catalogue;
}

export function isLang(value: unknown): value is Lang {
  return typeof value === 'string' && (languages as readonly string[]).includes(value);
}

/** The language of a request: the switch's cookie, else the first of Accept-Language we have, else English. */
export function chooseLang(cookie: string | undefined, acceptLanguage: string | undefined): Lang {
  if (isLang(cookie)) return cookie;
  const ranked = (acceptLanguage ?? '')
    .split(',')
    .map((part, i) => {
      const [tag = '', ...params] = part.trim().split(';');
      const q = params.map((p) => /^\s*q=([\d.]+)/.exec(p)?.[1]).find((v) => v !== undefined);
      return { lang: tag.trim().toLowerCase().split('-')[0] ?? '', q: q === undefined ? 1 : Number(q), i };
    })
    .filter((x) => x.q > 0)
    .sort((a, b) => b.q - a.q || a.i - b.i);
  for (const { lang } of ranked) if (isLang(lang)) return lang;
  return 'en';
}
