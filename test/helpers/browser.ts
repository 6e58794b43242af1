/**
 * Real-browser tests of the panel: playwright-core driving Debian's Chromium
 * (/usr/bin/chromium, or HABERCI_TEST_CHROMIUM). Without it the tests are skipped with
 * `chromiumSkip` as the reason. With HABERCI_SCREENSHOTS=1 `screenshot()` writes PNGs to
 * docs/panel/ for docs/panel.md.
 */
import { existsSync, mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { chromium } from 'playwright-core';
import type { Browser, BrowserContext, Page } from 'playwright-core';

export const chromiumPath = process.env.HABERCI_TEST_CHROMIUM ?? '/usr/bin/chromium';

/** false when Chromium is there; otherwise why the browser tests are skipped. */
export const chromiumSkip: string | false = existsSync(chromiumPath)
  ? false
  : `no Chromium at ${chromiumPath} (install Debian's chromium, or set HABERCI_TEST_CHROMIUM)`;

export async function launchBrowser(): Promise<Browser> {
  return chromium.launch({ executablePath: chromiumPath, args: ['--no-sandbox'] });
}

/** A fresh context (cookies of its own) with a language, and a phone-sized screen when asked. */
export async function newPage(
  browser: Browser,
  options: { locale?: string; phone?: boolean } = {},
): Promise<{ context: BrowserContext; page: Page }> {
  const context = await browser.newContext({
    locale: options.locale ?? 'en-GB',
    viewport: options.phone === true ? { width: 390, height: 844 } : { width: 1280, height: 900 },
  });
  const page = await context.newPage();
  return { context, page };
}

const screenshotsOn = process.env.HABERCI_SCREENSHOTS === '1';
const screenshotDir = resolve('docs/panel');

/**
 * Writes docs/panel/<name>.png when HABERCI_SCREENSHOTS=1; does nothing otherwise. The
 * viewport only, to keep the PNGs small, unless `fullPage` (a page whose point is below the fold).
 */
export async function screenshot(page: Page, name: string, options: { fullPage?: boolean } = {}): Promise<void> {
  if (!screenshotsOn) return;
  mkdirSync(screenshotDir, { recursive: true });
  // caret 'initial': Playwright would otherwise inject a style element, which the CSP refuses.
  await page.screenshot({
    path: join(screenshotDir, `${name}.png`),
    fullPage: options.fullPage === true,
    caret: 'initial',
  });
}

/** Signs in through the form, by label and role, as a person does. */
export async function signIn(page: Page, base: string, email: string, password: string): Promise<void> {
  await page.goto(`${base}/panel/`);
  await page.getByLabel('Email').fill(email);
  await page.getByLabel('Password').fill(password);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.waitForURL(/\/panel\/(?!sign-in)/);
}

/**
 * Controls of the page a person could not identify: inputs, selects, text areas, buttons and
 * links with no accessible name (no label, aria-label, aria-labelledby or text). Returns a
 * short description of each; an empty list is the goal.
 */
export async function unnamedControls(page: Page): Promise<string[]> {
  return page.evaluate(() => {
    const out: string[] = [];
    for (const el of Array.from(document.querySelectorAll('input, select, textarea, button, a[href]'))) {
      if (el instanceof HTMLInputElement && el.type === 'hidden') continue;
      const labelled = el.getAttribute('aria-labelledby');
      const byLabel =
        'labels' in el && (el as HTMLInputElement).labels !== null
          ? Array.from((el as HTMLInputElement).labels ?? [])
              .map((l) => l.textContent ?? '')
              .join('')
          : '';
      const name = [
        el.getAttribute('aria-label') ?? '',
        labelled ? (document.getElementById(labelled)?.textContent ?? '') : '',
        byLabel,
        el instanceof HTMLInputElement ? '' : (el.textContent ?? ''),
      ]
        .join('')
        .trim();
      if (name === '') out.push(el.outerHTML.slice(0, 80));
    }
    return out;
  });
}
