/**
 * Resellers' brands on every dialect: one per account, a host held by one brand at most
 * (also when two brands ask for it at once), the logo kept byte for byte, and the host
 * lookup the panel makes on every request.
 */
import assert from 'node:assert/strict';
import { after, before, it } from 'node:test';
import { describeOn, testDialects } from '../../helpers/dialects.js';
import { openAppContainer } from '../../../src/main.js';
import type { AppContainer } from '../../../src/main.js';
import { valueOf } from '../../helpers/results.js';

const svg = Buffer.from('<svg xmlns="http://www.w3.org/2000/svg" width="1" height="1"/>');
const jpeg = Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0, 16, 0x4a, 0x46, 0x49, 0x46, 0, 1, 0xff, 0xfe, 0x80]);

for (const dialect of testDialects()) {
  describeOn(dialect, `brand store (${dialect.name})`, () => {
    let runtime: AppContainer;
    const ids: number[] = [];
    before(async () => {
      runtime = await openAppContainer(await dialect.location());
      for (const name of ['Bayi 1', 'Bayi 2', 'Bayi 3']) {
        const account = await valueOf(
          runtime.admin.createAccount({
            name,
            balanceMain: 0,
            balanceInternational: 0,
            perMinuteLimit: 0,
            otpBrand: '',
            ipAllow: [],
            globalSending: false,
          }),
        );
        ids.push(account.id);
      }
    });
    after(() => runtime.close());
    const brands = () => runtime.store.brands;
    const id = (i: number): number => ids[i] ?? 0;

    it('creates a brand with the default name, changes only what a change gives, and clears a field with null', async () => {
      assert.equal(await brands().get(id(0)), null);
      const made = await brands().save(id(0), { color: '#123456' }, 'Bayi 1', 1000);
      assert.notEqual(made, 'host-taken');
      assert.equal(typeof made === 'object' && made.name, 'Bayi 1');
      await brands().save(id(0), { name: 'Mavi', host: 'mavi.example', support: 'destek' }, 'unused', 2000);
      const changed = await brands().get(id(0));
      assert.deepEqual(changed, {
        accountId: id(0),
        name: 'Mavi',
        host: 'mavi.example',
        color: '#123456',
        support: 'destek',
        logoType: null,
        updatedAt: 2000,
      });
      await brands().save(id(0), { support: null }, 'unused', 3000);
      assert.equal((await brands().get(id(0)))?.support, null);
      assert.equal((await brands().byHost('mavi.example'))?.accountId, id(0));
      assert.equal(await brands().byHost('other.example'), null);
    });

    it('keeps the logo byte for byte with its type, and removes it', async () => {
      await brands().save(id(0), { logo: { type: 'image/jpeg', bytes: jpeg } }, 'unused', 4000);
      const logo = await brands().logo(id(0));
      assert.equal(logo?.type, 'image/jpeg');
      assert.deepEqual(logo?.bytes, jpeg);
      assert.equal((await brands().get(id(0)))?.logoType, 'image/jpeg');
      await brands().save(id(0), { logo: null }, 'unused', 5000);
      assert.equal(await brands().logo(id(0)), null);
    });

    it('a host is one brand\u2019s: a second brand asking for it gets host-taken, also when two ask at once', async () => {
      assert.equal(await brands().save(id(1), { host: 'mavi.example' }, 'Bayi 2', 6000), 'host-taken');
      assert.equal(await brands().get(id(1)), null);
      const racing = await Promise.all([
        brands().save(id(1), { host: 'race.example' }, 'Bayi 2', 7000),
        brands().save(id(2), { host: 'race.example' }, 'Bayi 3', 7000),
      ]);
      assert.equal(racing.filter((r) => r === 'host-taken').length, 1);
      // Its own host again is no conflict; brands without a host are many.
      const winner = racing.findIndex((r) => r !== 'host-taken') + 1;
      assert.notEqual(await brands().save(id(winner), { host: 'race.example' }, 'x', 8000), 'host-taken');
      assert.notEqual(await brands().save(id(winner), { host: null }, 'x', 8001), 'host-taken');
      assert.notEqual(await brands().save(id(3 - winner), { host: null }, 'x', 8002), 'host-taken');
    });

    it('the service checks what a panel or the CLI gives, and the host lookup sees a change at once in this process', async () => {
      const service = runtime.brands;
      assert.equal((await service.change(id(1), { name: 'X' }, null)).ok, false);
      await valueOf(runtime.admin.updateAccount(id(1), { reseller: true }, {}));
      assert.equal(await service.forHost('yesil.example'), null);
      const bad = await service.change(id(1), { color: 'green' }, null);
      assert.deepEqual(bad.ok ? null : bad.field, 'color');
      const logo = await service.change(id(1), { logo: svg, host: 'Yesil.Example' }, null);
      assert.ok(logo.ok);
      assert.equal((await service.forHost('yesil.example'))?.logoType, 'image/svg+xml');
      assert.equal((await service.change(id(1), { logo: Buffer.from('GIF89a') }, null)).ok, false);
    });
  });
}
