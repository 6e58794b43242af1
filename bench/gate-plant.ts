/**
 * A planted regression for `npm run bench:gate -- --plant-us N`: loaded into a haberci
 * server with `--import`, it makes every HTTP request spin N microseconds of CPU before the
 * server sees it. Never part of the service: only the gate's own proof that it fails on
 * a regression of the size it must catch.
 */
import { Server } from 'node:http';

const micros = Number(process.env.HABERCI_GATE_PLANT_US ?? '0');

if (micros > 0) {
  const emit = Server.prototype.emit;
  const planted = function (this: Server, event: string | symbol, ...args: unknown[]): boolean {
    if (event === 'request') {
      const until = process.hrtime.bigint() + BigInt(Math.round(micros * 1000));
      while (process.hrtime.bigint() < until);
    }
    return Reflect.apply(emit, this, [event, ...args]) as boolean;
  };
  Server.prototype.emit = planted as typeof emit;
}
