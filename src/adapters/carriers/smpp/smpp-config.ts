import { readFile } from 'node:fs/promises';
import { z } from 'zod';

/**
 * SMPP carrier configuration, read from a JSON file the provider writes (docs/smpp.md).
 * Limits follow SMPP 3.4: system_id up to 15 octets, password up to 8, system_type up to 12.
 */

const ascii = (max: number, what: string) =>
  z
    .string()
    .max(max, `${what} is at most ${max} characters`)
    .regex(/^[\x20-\x7e]*$/, `${what} must be printable ASCII`);

const ms = (min: number) => z.number().int().min(min);

const connectionSchema = z
  .object({
    name: z
      .string()
      .min(1)
      .regex(/^[A-Za-z0-9_.-]+$/, 'name: letters, digits, "_", "-", "." only'),
    host: z.string().min(1),
    port: z.number().int().min(1).max(65535),
    systemId: ascii(15, 'systemId').min(1),
    password: ascii(8, 'password'),
    systemType: ascii(12, 'systemType').default(''),
    bindMode: z.enum(['transceiver', 'transmitter+receiver']).default('transceiver'),
    windowSize: z.number().int().min(1).max(1000).default(10),
    /** The submits per second of the whole cluster on this connection, split between its binds. */
    maxSubmitsPerSecond: z.number().positive().max(100_000).default(50),
    /** Binds of this connection across the cluster (one per process at most), held by leases in the store. */
    maxBinds: z.number().int().min(1).max(100).default(1),
    enquireLinkMs: ms(100).default(30_000),
    reconnectMinMs: ms(10).default(1_000),
    reconnectMaxMs: ms(10).default(60_000),
    prefixes: z.array(z.string().regex(/^\d{1,15}$/, 'prefixes are digits, e.g. "90532"')).optional(),
    /** How an alphanumeric sender ID's Turkish letters go on this link (domain/sender-title.ts). */
    senderIdEncoding: z.enum(['ascii', 'gsm7-turkish']).default('ascii'),
  })
  .strict()
  .refine((c) => c.reconnectMaxMs >= c.reconnectMinMs, { message: 'reconnectMaxMs must be at least reconnectMinMs' });

const carrierSchema = z
  .object({
    connections: z.array(connectionSchema).min(1, 'at least one connection is needed'),
    defaultRoute: z.string().min(1),
    submitTimeoutMs: ms(100).default(10_000),
    giveUpAfterMs: ms(100).default(30_000),
  })
  .strict()
  .superRefine((c, ctx) => {
    const names = c.connections.map((x) => x.name);
    const duplicate = names.find((n, i) => names.indexOf(n) !== i);
    if (duplicate)
      ctx.addIssue({ code: 'custom', path: ['connections'], message: `connection name "${duplicate}" is used twice` });
    if (!names.includes(c.defaultRoute)) {
      ctx.addIssue({
        code: 'custom',
        path: ['defaultRoute'],
        message: `"${c.defaultRoute}" is not a connection name (${names.join(', ')})`,
      });
    }
    const owner = new Map<string, string>();
    for (const conn of c.connections) {
      for (const prefix of conn.prefixes ?? []) {
        const other = owner.get(prefix);
        if (other !== undefined)
          ctx.addIssue({
            code: 'custom',
            path: ['connections'],
            message: `prefix ${prefix} is routed to both "${other}" and "${conn.name}"`,
          });
        owner.set(prefix, conn.name);
      }
    }
  });

export type SmppConnectionConfig = z.output<typeof connectionSchema>;
export type SmppCarrierConfig = z.output<typeof carrierSchema>;
/** What a config file may contain: the same, with defaults left out. */
export type SmppCarrierConfigInput = z.input<typeof carrierSchema>;

export type ConfigResult = { ok: true; config: SmppCarrierConfig } | { ok: false; message: string };

function describe(error: z.ZodError): string {
  return error.issues.map((i) => `${i.path.length > 0 ? i.path.join('.') : '(top)'}: ${i.message}`).join('; ');
}

export function parseSmppConfig(value: unknown): ConfigResult {
  const parsed = carrierSchema.safeParse(value);
  return parsed.success
    ? { ok: true, config: parsed.data }
    : { ok: false, message: `invalid SMPP config: ${describe(parsed.error)}` };
}

/** Reads and checks a JSON config file; every problem is a one-line message, never a throw. */
export async function loadSmppConfig(path: string): Promise<ConfigResult> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    return {
      ok: false,
      message: `cannot read SMPP config ${path}: ${error instanceof Error ? error.message : String(error)}`,
    };
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    return {
      ok: false,
      message: `SMPP config ${path} is not JSON: ${error instanceof Error ? error.message : String(error)}`,
    };
  }
  const result = parseSmppConfig(json);
  return result.ok ? result : { ok: false, message: `${path}: ${result.message}` };
}
