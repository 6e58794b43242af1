import autocannon from 'autocannon';
import type { ServerProcess } from './server-process.js';

/** One /sms/send to one number: the body every send bench posts (28 GSM characters, as Kannel's). */
export function smsSendBody(apiKey: string, recipient = '905321234567'): string {
  return JSON.stringify({
    api_key: apiKey,
    sentto: recipient,
    title: 'BENCH',
    text: 'Benchmark message 1234567890',
    sms_lang: 0,
  });
}

export interface CountedLoad {
  requestsPerSecond: number;
  latencyP50Ms: number;
  latencyP99Ms: number;
  non2xx: number;
  errors: number;
  /** The sms_id of every accepted answer, in arrival order. */
  smsIds: number[];
  seconds: number;
}

/**
 * autocannon: `amount` POSTs (or `seconds` of them) of one body over `connections`
 * keep-alive connections, keeping the sms_id of every accepted answer.
 */
export async function loadSmsSend(
  server: ServerProcess,
  body: string,
  load: { connections: number; amount?: number; seconds?: number; rate?: number },
): Promise<CountedLoad> {
  const smsIds: number[] = [];
  const started = performance.now();
  const result = await autocannon({
    url: `${server.url}/sms/send`,
    connections: load.connections,
    pipelining: 1,
    timeout: 10,
    ...(load.amount === undefined ? { duration: load.seconds ?? 10 } : { amount: load.amount }),
    ...(load.rate === undefined ? {} : { overallRate: load.rate }),
    requests: [
      {
        method: 'POST',
        path: '/sms/send',
        headers: { 'content-type': 'application/json' },
        body,
        onResponse: (status, text) => {
          if (status !== 200) return;
          const answer = JSON.parse(text) as { result?: boolean; sms_id?: number };
          if (answer.result === true && typeof answer.sms_id === 'number') smsIds.push(answer.sms_id);
        },
      },
    ],
  });
  return {
    requestsPerSecond: result.requests.average,
    latencyP50Ms: result.latency.p50,
    latencyP99Ms: result.latency.p99,
    non2xx: result.non2xx,
    errors: result.errors + result.timeouts,
    smsIds,
    seconds: (performance.now() - started) / 1000,
  };
}

/** POST a JSON body; the answer's status, parsed body and the time to the end of the answer. */
export async function postJson(
  url: string,
  body: string,
): Promise<{ status: number; json: Record<string, unknown>; ms: number }> {
  const started = performance.now();
  const response = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
  const text = await response.text();
  const ms = performance.now() - started;
  return { status: response.status, json: JSON.parse(text) as Record<string, unknown>, ms };
}
