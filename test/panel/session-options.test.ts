import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { loadConfig } from '../../src/config.js';
import { createHttp, createLogger, openAppContainer } from '../../src/main.js';
import { FixedClock } from '../../src/ports/clock.js';
import { UserService } from '../../src/services/panel/users.js';
import { PanelBrowser } from '../helpers/panel.js';
import { defaultNow } from '../helpers/harness.js';
import { valueOf } from '../helpers/results.js';

describe('panel session options', () => {
  it('end sessions after --panel-idle-minutes without a request and --panel-session-hours after sign-in', async () => {
    const clock = new FixedClock(defaultNow);
    const runtime = await openAppContainer({ dialect: 'sqlite', file: ':memory:' }, clock);
    const config = loadConfig({ panelIdleMinutes: '5', panelSessionHours: '1', warmUp: '0' }, {});
    const app = await createHttp({ container: runtime, config, logger: createLogger('silent') });
    try {
      const account = await valueOf(
        runtime.admin.createAccount({
          name: 'Options',
          balanceMain: 0,
          balanceInternational: 0,
          perMinuteLimit: 0,
          otpBrand: '',
          ipAllow: [],
          globalSending: false,
        }),
      );
      await valueOf(
        new UserService(runtime.store, clock).create({
          accountId: account.id,
          email: 'options@example.com',
          password: 'options-password',
        }),
      );
      const b = new PanelBrowser(app);
      await b.signIn('options@example.com', 'options-password');
      clock.advance(4 * 60_000);
      assert.equal((await b.get('/panel/keys')).status, 200);
      clock.advance(5 * 60_000);
      assert.equal((await b.get('/panel/keys')).status, 303, 'five idle minutes');
      await b.signIn('options@example.com', 'options-password');
      for (let i = 0; i < 14; i += 1) {
        clock.advance(4 * 60_000);
        assert.equal((await b.get('/panel/keys')).status, 200);
      }
      clock.advance(4 * 60_000);
      assert.equal((await b.get('/panel/keys')).status, 303, 'an hour after sign-in');
    } finally {
      await app.close();
      await runtime.close();
    }
  });
});
