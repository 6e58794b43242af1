import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';

/** The name a thread's traffic rows are written under: its host, process and thread, and a random tag of this start. */
export function trafficSource(thread: 'http' | 'dispatch'): string {
  return `${hostname().slice(0, 40)}/${process.pid}/${thread}/${randomBytes(3).toString('hex')}`;
}
