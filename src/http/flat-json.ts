/**
 * An incremental parser for the one JSON shape the bulk endpoints take: an object whose
 * values are scalars or arrays of scalars. It is fed the body chunk by chunk as it
 * arrives, so a body of hundreds of megabytes never exists as one string, a body of the
 * wrong shape is refused at its first wrong byte, and the process answers other clients
 * between chunks. What it keeps is bounded by its limits: at most `maxArrayItems + 1`
 * items of an array (one more than allowed, so the endpoint's own rule still answers
 * "too many"), strings of at most `maxStringLength` characters, `maxKeys` members.
 *
 * JSON.parse stays the parser of every small body: this one exists for the sizes where
 * JSON.parse's memory (which grows with the shape, not the size) and its one long pause
 * are the problem.
 */

export interface FlatJsonLimits {
  maxArrayItems: number;
  maxStringLength: number;
  maxKeys: number;
}

/** The body is not an object of scalars and arrays of scalars within the limits. */
export class FlatJsonError extends Error {
  /** The member whose value is wrong, when the fault is in one. */
  constructor(
    message: string,
    readonly field?: string,
  ) {
    super(message);
  }
}

type Scalar = string | number | boolean | null;
type State =
  'start' | 'key-or-end' | 'key' | 'colon' | 'value' | 'item-or-end' | 'item' | 'after-item' | 'after-value' | 'done';

const forbiddenKeys = new Set(['__proto__', 'constructor', 'prototype']);
const scalarStart = /[-0-9tfn]/;
/** A number or literal runs until one of these (or the end of the body). */
const scalarEnd = /[\s,\]}]/;

export class FlatJsonParser {
  private state: State = 'start';
  private text = '';
  private pos = 0;
  private key = '';
  private array: Scalar[] | null = null;
  private arrayCount = 0;
  private keys = 0;
  private readonly body: Record<string, Scalar | Scalar[]> = {};

  /** `onMember`: told of each top-level member with a scalar value as soon as it is read (api_key, say). */
  constructor(
    private readonly limits: FlatJsonLimits,
    private readonly onMember: (key: string, value: Scalar) => void = () => undefined,
  ) {}

  write(chunk: string): void {
    // What is left of the last chunk is at most one unfinished token, bounded by the limits.
    this.text = this.pos < this.text.length ? this.text.slice(this.pos) + chunk : chunk;
    this.pos = 0;
    while (this.step()) {
      // each step consumes one token or reports that the rest is unfinished
    }
  }

  end(): Record<string, Scalar | Scalar[]> {
    this.write(' ');
    this.skipSpace();
    if (this.state !== 'done' || this.pos < this.text.length)
      throw new FlatJsonError('the body ends before the JSON object does');
    return this.body;
  }

  /** Consumes one token; false when the text ends inside one (more is needed). */
  private step(): boolean {
    this.skipSpace();
    if (this.pos >= this.text.length) return false;
    const c = this.text[this.pos] ?? '';
    switch (this.state) {
      case 'start':
        return this.expect(c, '{', 'key-or-end', 'the body is not a JSON object');
      case 'key-or-end':
        if (c === '}') return this.finish();
        this.state = 'key';
        return true;
      case 'key': {
        const key = this.readString();
        if (key === null) return false;
        if (forbiddenKeys.has(key)) throw new FlatJsonError(`the member name ${key} is not allowed`);
        if (++this.keys > this.limits.maxKeys)
          throw new FlatJsonError(`the body has more than ${this.limits.maxKeys} members`);
        this.key = key;
        this.state = 'colon';
        return true;
      }
      case 'colon':
        return this.expect(c, ':', 'value', `a colon must follow "${this.key}"`);
      case 'value':
        if (c === '[') {
          this.pos++;
          this.array = [];
          this.arrayCount = 0;
          this.state = 'item-or-end';
          return true;
        }
        return this.readMemberScalar();
      case 'item-or-end':
        if (c === ']') return this.closeArray();
        this.state = 'item';
        return true;
      case 'item':
        return this.readItem();
      case 'after-item':
        if (c === ']') return this.closeArray();
        return this.expect(c, ',', 'item', `"${this.key}" must be an array of strings or numbers`);
      case 'after-value':
        if (c === '}') return this.finish();
        return this.expect(c, ',', 'key', 'a comma or the end of the object must follow a member');
      case 'done':
        throw new FlatJsonError('the body goes on after its JSON object');
    }
  }

  private readMemberScalar(): boolean {
    const value = this.readScalar(`"${this.key}" must be a string, number or array`, this.key);
    if (value === undefined) return false;
    this.body[this.key] = value;
    this.state = 'after-value';
    this.onMember(this.key, value);
    return true;
  }

  private readItem(): boolean {
    const value = this.readScalar(`"${this.key}" must be an array of strings or numbers`, this.key);
    if (value === undefined) return false;
    // One item past the limit is kept (so the endpoint answers "too many"); the rest are
    // read and dropped, so the body's key is still found and memory stays bounded.
    if (++this.arrayCount <= this.limits.maxArrayItems + 1) this.array?.push(value);
    this.state = 'after-item';
    return true;
  }

  private closeArray(): boolean {
    this.pos++;
    this.body[this.key] = this.array ?? [];
    this.array = null;
    this.state = 'after-value';
    return true;
  }

  private finish(): boolean {
    this.pos++;
    this.state = 'done';
    return true;
  }

  private expect(c: string, wanted: string, next: State, message: string): boolean {
    if (c !== wanted) throw new FlatJsonError(message);
    this.pos++;
    this.state = next;
    return true;
  }

  /** A string, number or literal at pos; undefined when the text ends inside it. */
  private readScalar(wrongType: string, field: string): Scalar | undefined {
    const c = this.text[this.pos] ?? '';
    if (c === '"') {
      const s = this.readString();
      return s === null ? undefined : s;
    }
    if (!scalarStart.test(c)) throw new FlatJsonError(wrongType, field);
    let end = this.pos;
    while (end < this.text.length && !scalarEnd.test(this.text[end] ?? '')) end++;
    if (end === this.text.length) {
      if (end - this.pos > 64) throw new FlatJsonError('a number is too long');
      return undefined;
    }
    const raw = this.text.slice(this.pos, end);
    let value: unknown;
    try {
      value = JSON.parse(raw);
    } catch {
      throw new FlatJsonError(`${raw.slice(0, 20)} is not a JSON value`);
    }
    if (typeof value === 'object' && value !== null) throw new FlatJsonError(wrongType, field);
    this.pos = end;
    return value as Scalar;
  }

  /** A JSON string at pos (pos at its quote); null when the text ends inside it. */
  private readString(): string | null {
    if (this.text[this.pos] !== '"') throw new FlatJsonError('a member name must be a string');
    let end = this.pos + 1;
    for (;;) {
      end = this.text.indexOf('"', end);
      if (end === -1) {
        // Escapes take at most six characters a character.
        if (this.text.length - this.pos > this.limits.maxStringLength * 6 + 2)
          throw new FlatJsonError(`a string is longer than ${this.limits.maxStringLength} characters`);
        return null;
      }
      let backslashes = 0;
      for (let i = end - 1; this.text[i] === '\\'; i--) backslashes++;
      if (backslashes % 2 === 0) break;
      end++;
    }
    let value: unknown;
    try {
      value = JSON.parse(this.text.slice(this.pos, end + 1));
    } catch {
      throw new FlatJsonError('a string is not valid JSON');
    }
    if (typeof value !== 'string') throw new FlatJsonError('a string is not valid JSON');
    if (value.length > this.limits.maxStringLength)
      throw new FlatJsonError(`a string is longer than ${this.limits.maxStringLength} characters`);
    this.pos = end + 1;
    return value;
  }

  private skipSpace(): void {
    const t = this.text;
    let p = this.pos;
    while (p < t.length) {
      const c = t.charCodeAt(p);
      if (c !== 0x20 && c !== 0x0a && c !== 0x0d && c !== 0x09) break;
      p++;
    }
    this.pos = p;
  }
}
