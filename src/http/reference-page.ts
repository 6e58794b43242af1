/**
 * The reference page at GET /docs, rendered from the OpenAPI document on the server: plain
 * HTML and CSS, no script and nothing fetched, so it works offline and reads in any browser
 * or screen reader (docs/decisions.md, "The contract").
 */
type JsonObject = Record<string, unknown>;

const obj = (v: unknown): JsonObject =>
  typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as JsonObject) : {};
const list = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);
const text = (v: unknown): string => (typeof v === 'string' ? v : v === undefined ? '' : JSON.stringify(v));

function esc(s: string): string {
  return s.replace(
    /[&<>"']/g,
    (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c] ?? c,
  );
}

/** Inline `code` spans of the descriptions, after escaping. */
function prose(s: string): string {
  return esc(s).replace(/`([^`]+)`/g, '<code>$1</code>');
}

function typeOf(schema: JsonObject): string {
  if ('const' in schema) return `${text(schema.const)} (constant)`;
  const t = schema.type;
  const base = Array.isArray(t) ? t.map(text).join(' or ') : text(t);
  if (base === 'array') return `array of ${typeOf(obj(schema.items)) || 'any'}`;
  if (schema.oneOf || schema.anyOf)
    return list(schema.oneOf ?? schema.anyOf)
      .map((s) => typeOf(obj(s)))
      .join(' or ');
  return base || 'any';
}

function rules(schema: JsonObject): string {
  const parts: string[] = [];
  if (schema.description) parts.push(prose(text(schema.description).replace(/\.$/, '')));
  const bounds: [string, string][] = [
    ['minLength', 'at least %s characters'],
    ['maxLength', 'at most %s characters'],
    ['minimum', 'at least %s'],
    ['maximum', 'at most %s'],
    ['minItems', 'at least %s items'],
    ['maxItems', 'at most %s items'],
    ['default', 'default %s'],
  ];
  for (const [key, words] of bounds) if (key in schema) parts.push(esc(words.replace('%s', text(schema[key]))));
  if (Array.isArray(schema.enum))
    parts.push(`one of ${schema.enum.map((v) => `<code>${esc(text(v))}</code>`).join(', ')}`);
  if (schema.pattern) parts.push(`pattern <code>${esc(text(schema.pattern))}</code>`);
  return parts.join('; ');
}

/** Rows for an object's fields, nested fields named with dots. */
function fieldRows(schema: JsonObject, prefix = ''): string[] {
  const required = new Set(list(schema.required).map(text));
  const rows: string[] = [];
  for (const [name, raw] of Object.entries(obj(schema.properties))) {
    const field = obj(raw);
    const full = prefix + name;
    rows.push(
      `<tr><td><code>${esc(full)}</code></td><td>${esc(typeOf(field))}</td><td>${required.has(name) ? 'yes' : 'no'}</td><td>${rules(field)}</td></tr>`,
    );
    if (field.type === 'object') rows.push(...fieldRows(field, `${full}.`));
    if (field.type === 'array' && obj(field.items).type === 'object')
      rows.push(...fieldRows(obj(field.items), `${full}[].`));
  }
  return rows;
}

function fieldTable(schema: JsonObject, caption: string): string {
  const rows = fieldRows(schema);
  if (rows.length === 0) return `<p>${esc(caption)}: none.</p>`;
  return `<table><caption>${esc(caption)}</caption><thead><tr><th scope="col">Field</th><th scope="col">Type</th><th scope="col">Required</th><th scope="col">Rules</th></tr></thead><tbody>${rows.join('')}</tbody></table>`;
}

function responseBlock(status: string, response: JsonObject): string {
  const schema = obj(obj(obj(response.content)['application/json']).schema);
  const shapes = schema.oneOf ? list(schema.oneOf).map(obj) : [schema];
  const parts = shapes.map((shape) => {
    const code = obj(obj(shape.properties).result_code);
    const success =
      text(obj(obj(shape.properties).result).const) === 'true' ||
      text(obj(obj(shape.properties).status).const) === 'success';
    const codes = list(code.enum)
      .map((c) => `<code>${esc(text(c))}</code>`)
      .join(', ');
    if (success) return `<p>Success (${codes}):</p>${fieldTable(shape, `HTTP ${status}, success body`)}`;
    const meanings = text(code.description)
      .split('; ')
      .map((m) => `<li>${esc(m)}</li>`);
    return `<p>Failures (<code>result</code> false or <code>status</code> <code>error</code>):</p><ul>${meanings.join('')}</ul>`;
  });
  return `<h4>HTTP ${esc(status)}: ${esc(text(response.description))}</h4>${parts.join('')}${examplesOf(obj(obj(response.content)['application/json']))}`;
}

/** The captured exchanges of a media type, as they were sent and answered. */
function examplesOf(media: JsonObject): string {
  return Object.values(obj(media.examples))
    .map(obj)
    .map(
      (x) =>
        `<figure><figcaption>Example${x.description ? `: ${esc(text(x.description))}` : ''}</figcaption><pre><code>${esc(JSON.stringify(x.value, null, 2))}</code></pre></figure>`,
    )
    .join('');
}

function operationSection(path: string, op: JsonObject, id: string): string {
  const content = obj(obj(op.requestBody).content);
  const request = obj(obj(content['application/json']).schema);
  const responses = Object.entries(obj(op.responses)).map(([status, r]) => responseBlock(status, obj(r)));
  const sample = Object.values(obj(obj(content['application/json']).examples)).map(obj)[0];
  const curl = sample
    ? `<p>Try it:</p><pre><code>curl -X POST http://127.0.0.1:8080${esc(path)} -H 'content-type: application/json' -d '${esc(JSON.stringify(sample.value))}'</code></pre>`
    : '';
  return `<section aria-labelledby="${esc(id)}"><h2 id="${esc(id)}"><code>POST ${esc(path)}</code></h2><p>${prose(text(op.summary))}</p><p>${prose(text(op.description))}</p>
<p>Body: <code>${Object.keys(content).map(esc).join('</code> or <code>')}</code>.</p>${fieldTable(request, 'Request fields')}${curl}<h3>Responses</h3>${responses.join('')}</section>`;
}

function webhookSection(name: string, op: JsonObject): string {
  const headers = list(op.parameters)
    .map(obj)
    .map(
      (h) =>
        `<tr><td><code>${esc(text(h.name))}</code></td><td>${h.required === true ? 'yes' : 'no'}</td><td>${prose(text(h.description))}</td></tr>`,
    );
  const body = obj(obj(obj(obj(op.requestBody).content)['application/json']).schema);
  return `<section aria-labelledby="wh-${esc(name)}"><h3 id="wh-${esc(name)}"><code>${esc(name)}</code></h3><p>${prose(text(op.summary))}. ${prose(text(op.description))}</p>
<table><caption>Headers</caption><thead><tr><th scope="col">Header</th><th scope="col">Required</th><th scope="col">Meaning</th></tr></thead><tbody>${headers.join('')}</tbody></table>${fieldTable(body, 'Payload')}</section>`;
}

const style = `body{font:16px/1.5 system-ui,sans-serif;max-width:72rem;margin:0 auto;padding:1rem 2rem;color:#1b1b1b}
code{font-family:ui-monospace,monospace;background:#f3f3f3;padding:0 .2em}table{border-collapse:collapse;margin:.5rem 0 1rem;width:100%}
th,td{border:1px solid #ccc;padding:.3rem .5rem;text-align:left;vertical-align:top}caption{text-align:left;font-weight:600}
section{border-top:2px solid #ddd;margin-top:2rem}nav ul{columns:2}pre{background:#f6f6f6;padding:.5rem;overflow-x:auto}figure{margin:.5rem 0}`;

export function referencePage(document: JsonObject): string {
  const info = obj(document.info);
  const ops = Object.entries(obj(document.paths)).map(([path, item]) => ({ path, op: obj(obj(item).post) }));
  const nav = ops
    .map(
      ({ path, op }) =>
        `<li><a href="#${esc(text(op.operationId))}">POST ${esc(path)}</a>: ${esc(text(op.summary))}</li>`,
    )
    .join('');
  const hooks = Object.entries(obj(document.webhooks)).map(([name, item]) => webhookSection(name, obj(obj(item).post)));
  const intro = text(info.description)
    .split('\n\n')
    .map((p) => `<p>${prose(p)}</p>`)
    .join('');
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<title>${esc(text(info.title))} ${esc(text(info.version))}: API reference</title><style>${style}</style></head><body>
<header><h1>${esc(text(info.title))}</h1><p>Version ${esc(text(info.version))}. OpenAPI ${esc(text(document.openapi))} document: <a href="/openapi.json">/openapi.json</a>.</p>${intro}</header>
<nav aria-label="Endpoints"><h2>Endpoints</h2><ul>${nav}</ul><p><a href="#webhooks">Webhook events</a></p></nav>
<main>${ops.map(({ path, op }) => operationSection(path, op, text(op.operationId))).join('\n')}
<section aria-labelledby="webhooks"><h2 id="webhooks">Webhook events</h2>${hooks.join('\n')}</section></main></body></html>`;
}
