/**
 * `reseller brand`: a reseller's white label (docs/resellers.md, "White label"). The host
 * is the provider's to set (it needs DNS); name, colour, support and logo the reseller may
 * also set from its panel. Without a change, prints the brand.
 */
import { open } from 'node:fs/promises';
import type { Command } from 'commander';
import { maxLogoBytes } from '../domain/brand.js';
import { CommandFailed, must } from './must.js';
import { parse } from './option-parsers.js';
import type { Leaf, Options, Run } from './admin-types.js';

/** The logo file's bytes, read no further than one byte past the limit. */
async function readLogo(path: string): Promise<Uint8Array> {
  let file;
  try {
    file = await open(path, 'r');
  } catch (error) {
    throw new CommandFailed(`the logo file cannot be read: ${error instanceof Error ? error.message : String(error)}`);
  }
  try {
    const buffer = Buffer.alloc(maxLogoBytes + 1);
    let length = 0;
    for (;;) {
      const { bytesRead } = await file.read(buffer, length, buffer.length - length, null);
      if (bytesRead === 0) break;
      length += bytesRead;
      if (length > maxLogoBytes) throw new CommandFailed(`a logo has at most ${maxLogoBytes / 1024} KiB`);
    }
    return buffer.subarray(0, length);
  } finally {
    await file.close();
  }
}

export function resellerCommands(admin: Command, leaf: Leaf, run: Run): void {
  const reseller = admin.command('reseller').description('resellers\u2019 white label');
  leaf(reseller, 'brand', 'set or show a reseller\u2019s brand (its panel on its own host)')
    .requiredOption('--account <n>', 'the reseller\u2019s account id', parse.integer(1))
    .option('--name <text>', 'the brand\u2019s name, shown instead of the provider\u2019s')
    .option('--host <name>', 'the host name its customers use (DNS pointed at this server); "" removes it')
    .option('--logo <file>', 'a PNG, JPEG or SVG file of at most 256 KiB')
    .option('--color <hex>', 'the brand\u2019s colour, #RRGGBB; "" removes it')
    .option('--support <text>', 'the support contact shown on every page; "" removes it')
    .action((o: Options) =>
      run(o, async (r) =>
        must(
          r.brands.command(o.account as number, {
            ...(typeof o.name === 'string' ? { name: o.name } : {}),
            ...(typeof o.host === 'string' ? { host: o.host } : {}),
            ...(typeof o.color === 'string' ? { color: o.color } : {}),
            ...(typeof o.support === 'string' ? { support: o.support } : {}),
            ...(typeof o.logo === 'string' ? { logo: await readLogo(o.logo) } : {}),
          }),
        ),
      ),
    );
}
