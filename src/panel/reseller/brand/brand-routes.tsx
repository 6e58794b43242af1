/**
 * The white label's routes (docs/resellers.md, "White label"): on a brand's host, its logo
 * and its colours' stylesheet (public: the sign-in page shows them); and a reseller's page
 * to set its brand's name, colour, support contact and logo (the host is the provider's to
 * set, with `admin reseller brand`). The page's form is multipart (a logo file), read here
 * before the panel's CSRF check, bounded: one file of at most 256 KiB and a few short fields.
 */
import multipart from '@fastify/multipart';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { PanelArea } from '../../context.js';
import { accountIdOf, actorOf } from '../../context.js';
import { sendPage } from '../../layout.js';
import { InputField, Notice } from '../../kit/fields.js';
import { SubmitRow } from '../../kit/form-rows.js';
import { Csrf } from '../../kit/post-form.js';
import { field } from '../../kit/forms.js';
import { brandMessages } from './catalogue.js';
import { NotFound } from '../../kit/not-found.js';
import { AccountSuspended } from '../../../services/panel/account/account-changes.js';
import type { BrandField, BrandInput, BrandService } from '../../../services/brands.js';
import type { Brand } from '../../../ports/brand-store.js';
import { maxBrandName, maxLogoBytes, maxSupportText } from '../../../domain/brand.js';

/**
 * What a logo may do when opened on its own: nothing. An SVG runs no script and loads
 * nothing (`default-src 'none'`), and `sandbox` gives it an origin of its own, so it
 * reaches neither the panel's cookies nor its pages. Inside the panel's pages it is an
 * <img>, where a browser runs no script of an SVG at all.
 */
export const logoPolicy = "default-src 'none'; style-src 'unsafe-inline'; sandbox";

/** The form as read: its text fields, and the logo's bytes (or that it was too large). */
type BrandForm = Record<string, string> & { logo?: Buffer; logoTooLarge?: 'yes' };

async function readForm(request: FastifyRequest): Promise<BrandForm> {
  const form: BrandForm = {};
  for await (const part of request.parts()) {
    if (part.type === 'file') {
      const bytes = await part.toBuffer().catch(() => null);
      if (bytes === null || part.file.truncated) form.logoTooLarge = 'yes';
      else if (bytes.length > 0) form.logo = bytes;
      continue;
    }
    if (typeof part.value === 'string') form[part.fieldname] = part.value;
  }
  return form;
}

/** The brand's colours over the panel's own: the one place its colour is written, checked #rrggbb at every save. */
function brandStyle(brand: Brand): string {
  const color = brand.color ?? '';
  if (!/^#[0-9a-f]{6}$/.test(color)) return '';
  return `:root { --accent: ${color}; }\n.top { border-top: 4px solid ${color}; }\n`;
}

/** The value the remove-logo box posts when ticked. */
const removeValue = 'remove';

type Errors = Partial<Record<BrandField, string>>;

function brandPage(
  request: FastifyRequest,
  reply: FastifyReply,
  brand: Brand | null,
  notes: { errors?: Errors; values?: Record<string, string>; saved?: boolean; status?: number } = {},
): FastifyReply {
  const state = request.panel;
  const t = brandMessages[state.lang];
  const errors = notes.errors ?? {};
  const values = notes.values ?? {};
  // The brand's text fields: what was typed (refused), else the brand's, else empty.
  const textField = (
    name: 'name' | 'color' | 'support',
    hint: string | undefined,
    attributes: Record<string, string | number | boolean>,
  ) => (
    <InputField
      id={`brand-${name}`}
      name={name}
      label={t[name]}
      hint={hint}
      state={state}
      value={values[name] ?? brand?.[name] ?? ''}
      error={errors[name]}
      attributes={attributes}
    />
  );
  return sendPage(request, reply, {
    title: t.title,
    status: notes.status ?? 200,
    body: (
      <>
        <Notice text={notes.saved === true ? t.saved : undefined} />
        <p>{t.intro}</p>
        <dl>
          <dt>{t.host}</dt>
          <dd>{brand?.host ?? t.hostNone}</dd>
        </dl>
        <p class="help">{t.hostHint}</p>
        <form method="post" action="/panel/reseller/brand" enctype="multipart/form-data" class="stack">
          <Csrf state={state} />
          {textField('name', undefined, { required: true, maxLength: maxBrandName })}
          {textField('color', t.colorHint, { maxLength: 7, pattern: '#[0-9a-fA-F]{6}' })}
          {textField('support', t.supportHint, { maxLength: maxSupportText })}
          {brand?.logoType && (
            <div>
              <p>{t.currentLogo}</p>
              <img
                src={`/panel/brand/logo/${brand.accountId}?v=${brand.updatedAt}`}
                alt={t.logoAlt(brand.name)}
                height={48}
              />
              <label>
                <input type="checkbox" name="remove_logo" value={removeValue} /> {t.removeLogo}
              </label>
            </div>
          )}
          <InputField
            id="brand-logo"
            name="logo"
            type="file"
            label={t.logo}
            hint={t.logoHint}
            state={state}
            error={errors.logo}
            attributes={{ accept: 'image/png,image/jpeg,image/svg+xml' }}
          />
          <SubmitRow label={t.save} />
        </form>
      </>
    ),
  });
}

async function logoReply(brands: BrandService, accountId: number, reply: FastifyReply): Promise<FastifyReply> {
  const logo = await brands.logo(accountId);
  if (!logo) throw new NotFound();
  return reply
    .header('content-security-policy', logoPolicy)
    .header('cache-control', 'private, max-age=3600')
    .type(logo.type)
    .send(logo.bytes);
}

function resellerRoutes(app: FastifyInstance, brands: BrandService): void {
  app.get<{ Querystring: { done?: string } }>('/reseller/brand', async (request, reply) => {
    const mine = await brands.ofReseller(accountIdOf(request.panel));
    if (!mine) throw new NotFound();
    return brandPage(request, reply, mine.brand, { saved: request.query.done === 'saved' });
  });

  // A reseller's own logo on its page, whatever host it is on (the brand's may have none yet).
  app.get<{ Params: { id: string } }>('/brand/logo/:id', async (request, reply) => {
    const accountId = accountIdOf(request.panel);
    if (request.params.id !== String(accountId) || !(await brands.ofReseller(accountId))) throw new NotFound();
    return logoReply(brands, accountId, reply);
  });

  app.post('/reseller/brand', async (request, reply) => {
    const accountId = accountIdOf(request.panel);
    // Refused as every change of a suspended account is, before whether it is a reseller is said.
    if (request.panel.suspended) throw new AccountSuspended();
    const mine = await brands.ofReseller(accountId);
    if (!mine) throw new NotFound();
    const t = brandMessages[request.panel.lang];
    const form = (request.body ?? {}) as BrandForm;
    if (form.logoTooLarge === 'yes')
      return brandPage(request, reply, mine.brand, { errors: { logo: t.badLogo }, values: form, status: 400 });
    // field(): a repeated name (`name=a&name=b`) of a url-encoded post is its first, never an array.
    const input: BrandInput = {
      name: field(form, 'name'),
      color: field(form, 'color'),
      support: field(form, 'support'),
      ...(form.logo !== undefined ? { logo: form.logo } : {}),
      ...(form.remove_logo === removeValue ? { removeLogo: true } : {}),
    };
    const result = await brands.change(accountId, input, actorOf(request));
    if (result.ok) return reply.redirect('/panel/reseller/brand?done=saved', 303);
    const messages: Partial<Record<BrandField, string>> = {
      name: t.badName,
      color: t.badColor,
      support: t.badSupport,
      logo: t.badLogo,
    };
    const message = messages[result.field];
    if (message === undefined) throw new NotFound();
    return brandPage(request, reply, mine.brand, { errors: { [result.field]: message }, values: form, status: 400 });
  });
}

/** The white label's area: its door is the brands service. */
export const brandRoutes: PanelArea<BrandService> = {
  name: 'reseller-brand',
  // In the reseller side's menu only (the plugin adds it there): other users' page is "not found".
  nav: [{ path: '/reseller/brand', label: (lang) => brandMessages[lang].nav, order: 230 }],
  async routes(app, brands) {
    // The brand of the request's host: its logo and its colours, for every page there.
    app.get('/brand/logo', { config: { panelAccess: 'public' } }, async (request, reply) => {
      const brand = request.panel.brand;
      if (!brand) throw new NotFound();
      return logoReply(brands, brand.accountId, reply);
    });
    app.get('/brand/style.css', { config: { panelAccess: 'public' } }, async (request, reply) => {
      const brand = request.panel.brand;
      if (!brand) throw new NotFound();
      return reply
        .header('cache-control', 'private, max-age=3600')
        .type('text/css; charset=utf-8')
        .send(brandStyle(brand));
    });
    await app.register(async (scope) => {
      await scope.register(multipart, {
        // A logo past the limit is cut off and marked truncated: the page says so, rather than an error page.
        throwFileSizeLimit: false,
        limits: {
          fieldNameSize: 64,
          fieldSize: 4096,
          fields: 8,
          files: 1,
          fileSize: maxLogoBytes,
          parts: 9,
          headerPairs: 32,
        },
      });
      // Read before the panel's preHandler checks the form's CSRF token in the body.
      // Signed-out requests are not parsed: the panel refuses them next, whatever they carry.
      scope.addHook('preValidation', async (request) => {
        if (request.isMultipart() && request.panel.user) request.body = await readForm(request);
      });
      resellerRoutes(scope, brands);
    });
  },
};
