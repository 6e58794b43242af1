import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Browser } from 'playwright-core';
import { admin, serverForSuite } from '../../helpers/server-process.js';
import { chromiumSkip, launchBrowser, newPage, screenshot, signIn } from '../../helpers/browser.js';

describe('panel in a browser: sign-in', { skip: chromiumSkip }, () => {
  const suite = serverForSuite('Browser Sign In', 100);
  let browser: Browser;
  const email = 'browser-sign-in@example.com';
  const password = 'correct horse battery';
  before(async () => {
    browser = await launchBrowser();
    await admin([
      'user',
      'create',
      '--account',
      suite.sender.accountId,
      '--email',
      email,
      '--password',
      password,
      ...suite.store,
    ]);
  });
  after(async () => {
    await browser.close();
  });

  it('refuses a wrong password next to the field, signs in with Email and Password, and signs out', async () => {
    const { server } = suite;
    const { context, page } = await newPage(browser);
    await page.goto(`${server.url}/panel/`);
    await screenshot(page, 'sign-in', { fullPage: true });
    await page.getByLabel('Email').fill(email);
    await page.getByLabel('Password').fill('not the password');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByText('The email or password is not right.').waitFor();
    // The error is tied to the field it concerns.
    assert.equal(await page.getByLabel('Password').getAttribute('aria-invalid'), 'true');
    await signIn(page, server.url, email, password);
    assert.equal(await page.getByRole('heading', { level: 1 }).innerText(), 'API keys');
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.waitForURL(/sign-in/);
    await page.getByText('You are signed out.').waitFor();
    await context.close();
  });
});
