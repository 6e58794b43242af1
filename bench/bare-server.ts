/**
 * The baseline of the /balance/ benchmark: a bare Fastify route that parses the JSON body
 * as ours does and answers the same JSON, with no key lookup, store, logging or plugins.
 * Run as a child process: `node dist/bench/bare-server.js PORT`.
 */
import Fastify from 'fastify';

const port = Number(process.argv[2] ?? '0');
if (!Number.isInteger(port) || port <= 0 || port > 65535) {
  process.stderr.write('usage: bare-server.js PORT\n');
  process.exit(1);
}

const answer = { result: true, result_code: 'TS-1040', result_message: 'Query successful', balance_main: 1000 };

const app = Fastify({ logger: false });
app.post('/balance/', async (request) => {
  // Read the key as a handler would, so the parsed body is used and not optimised away.
  const body = request.body as { api_key?: unknown } | undefined;
  if (typeof body?.api_key !== 'string') return { ...answer, result: false };
  return answer;
});

await app.listen({ port, host: '127.0.0.1' });
const stop = (): void => {
  void app.close().then(() => process.exit(0));
};
process.once('SIGTERM', stop);
process.once('SIGINT', stop);
