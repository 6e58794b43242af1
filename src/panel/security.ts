/**
 * The panel's cookies and headers. The session cookie is HttpOnly, SameSite=Lax, scoped to
 * /panel, and Secure whenever the request came over TLS (directly, or through a trusted
 * proxy's X-Forwarded-Proto: Fastify believes only the configured trusted proxies).
 */
import { randomBytes, timingSafeEqual } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';

export const sessionCookie = 'haberci_session';
export const langCookie = 'haberci_lang';
export const preCsrfCookie = 'haberci_pre';

const base = (request: FastifyRequest) => ({
  path: '/panel',
  sameSite: 'lax' as const,
  secure: request.protocol === 'https',
});

export function setSessionCookie(request: FastifyRequest, reply: FastifyReply, token: string): void {
  reply.setCookie(sessionCookie, token, { ...base(request), httpOnly: true });
}

export function clearSessionCookie(request: FastifyRequest, reply: FastifyReply): void {
  reply.clearCookie(sessionCookie, { ...base(request), httpOnly: true });
}

export function setLangCookie(request: FastifyRequest, reply: FastifyReply, lang: string): void {
  reply.setCookie(langCookie, lang, { ...base(request), httpOnly: true, maxAge: 365 * 24 * 3600 });
}

/** The signed-out forms' token: made once per browser, sent back in a cookie and a field. */
export function preCsrfOf(request: FastifyRequest, reply: FastifyReply): string {
  const existing = request.cookies[preCsrfCookie];
  if (existing !== undefined && /^[A-Za-z0-9_-]{20,}$/.test(existing)) return existing;
  const made = randomBytes(24).toString('base64url');
  reply.setCookie(preCsrfCookie, made, { ...base(request), httpOnly: true });
  return made;
}

export function sameToken(a: string | undefined, b: string | null | undefined): boolean {
  if (a === undefined || b === undefined || b === null || a === '' || b === '') return false;
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

/**
 * No inline script or style, no framing, nothing from elsewhere: htmx is configured
 * (meta htmx-config) to need neither eval nor inline styles.
 */
export const contentSecurityPolicy = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

export function securityHeaders(reply: FastifyReply): void {
  reply.header('content-security-policy', contentSecurityPolicy);
  reply.header('x-frame-options', 'DENY');
  reply.header('x-content-type-options', 'nosniff');
  reply.header('referrer-policy', 'same-origin');
  reply.header('cross-origin-opener-policy', 'same-origin');
}
