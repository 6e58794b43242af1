/**
 * The walls of the house (docs/architecture.md), checked by `npm test` (`npm run walls`).
 * Layers, from the bottom: domain and util import nothing of ours; ports see the domain;
 * services and jobs see ports and the domain; endpoints see services; the HTTP and panel
 * surfaces see endpoints and services; adapters implement ports; only the composition root
 * (main.ts and composition/, reached through main.ts alone) sees everything and reads
 * config.ts. runtime/ (threads, start and stop) and cli/ (commands) build nothing: they take
 * what they use from main.ts.
 */
const layer = (name) => `^src/${name}(/|\\.ts$)`;
/** The composition root and the process wiring above it: no layer below may import them, or read the options. */
const above = '^src/(cli|runtime|composition)/|^src/(main|config)\\.ts$';
const forbid = (name, from, to, comment) => ({
  name,
  severity: 'error',
  comment,
  from: { path: from },
  to: { path: to },
});

module.exports = {
  forbidden: [
    {
      name: 'no-cycles',
      severity: 'error',
      comment: 'An import cycle ties modules that should be read one after the other.',
      from: { path: '^src/' },
      to: { circular: true },
    },
    forbid(
      'domain-is-pure',
      layer('domain'),
      '^src/(?!domain/)',
      'The domain is the rules of the spec: it imports nothing of ours outside itself.',
    ),
    forbid(
      'util-is-pure',
      layer('util'),
      '^src/(?!util/)',
      'util/ holds small generic tools with no knowledge of the service.',
    ),
    forbid(
      'ports-see-the-domain-only',
      layer('ports'),
      '^src/(?!(ports|domain)/)',
      'Ports are interfaces in the words of the domain.',
    ),
    forbid(
      'services-use-ports',
      layer('services'),
      `^src/(adapters|jobs|http|endpoints|panel)/|${above}`,
      'Services reach the outside world only through ports.',
    ),
    forbid(
      'jobs-use-ports',
      layer('jobs'),
      `^src/(adapters|http|endpoints|panel)/|${above}`,
      'Background loops reach the store and carriers only through ports.',
    ),
    forbid(
      'endpoints-use-services',
      layer('endpoints'),
      `^src/(adapters|jobs|http|panel)/|${above}`,
      'An endpoint parses, calls a service, and maps the answer; the table and its pipeline serve every surface, so they know none (src/http/ mounts them).',
    ),
    forbid(
      'http-takes-surfaces',
      layer('http'),
      `^src/(adapters|jobs|panel)/|${above}`,
      'The HTTP server mounts surfaces it is given, with the limits it is given; it does not pick adapters or read the options.',
    ),
    forbid(
      'panel-uses-services',
      layer('panel'),
      `^src/(adapters|jobs|endpoints)/|${above}`,
      'The panel calls the same services as the API: no SQL, no second copy of a rule.',
    ),
    forbid(
      'panel-customer-side-alone',
      '^src/(panel|services/panel)/account/',
      '^src/(panel|services/panel)/provider/',
      "The customer side of the panel cannot reach the provider's console, its pages or its services (docs/architecture.md, The panel).",
    ),
    forbid(
      'panel-provider-side-alone',
      '^src/panel/provider/',
      '^src/panel/(account|session)/',
      "The console's pages use the kit and their own door, not the customer's pages.",
    ),
    forbid(
      'panel-kit-below-the-pages',
      '^src/panel/kit/',
      '^src/panel/(account|provider|session)/|^src/panel/(areas|plugin|layout)\\.tsx?$',
      'The kit serves every page and knows none.',
    ),
    forbid(
      'smpp-is-protocol',
      layer('smpp'),
      '^src/(?!(smpp|domain)/)',
      'src/smpp/ is the SMPP 3.4 wire (the codec both sides share: the carrier adapter and the SMPP server for customers); it knows the domain and nothing else of ours.',
    ),
    forbid(
      'smpp-server-uses-the-api',
      layer('smpp-server'),
      `^src/(adapters|jobs|panel)/|${above}`,
      "The SMPP server for customers sends through the API's own pipeline and services: no adapter, no second send path.",
    ),
    forbid(
      'smpp-server-through-its-services',
      layer('smpp-server'),
      '^src/ports/(?!(clock|metrics)\\.ts$)',
      'The SMPP server reaches the store through its services (src/services/smpp/: its users, binds, concatenated parts, what is owed to them): no store part, no outbox row, read or written from the surface.',
    ),
    forbid(
      'smpp-server-beside-http',
      layer('smpp-server'),
      layer('http'),
      "The SMPP server is a surface beside the HTTP server, not on it: the pipeline they share is the endpoint table's (src/endpoints/pipeline.ts).",
    ),
    forbid(
      'adapters-implement-ports',
      layer('adapters'),
      `^src/(services|jobs|http|endpoints|panel)/|${above}`,
      'Adapters implement ports; they never call up into the application.',
    ),
    forbid(
      'options-are-plain',
      '^src/config\\.ts$',
      '^src/(?!domain/)',
      "The options table checks values with the domain's rules and knows nothing else of ours.",
    ),
    forbid(
      'processes-take-from-main',
      '^src/(cli|runtime)/',
      '^src/(adapters|services|jobs|http|endpoints|panel|composition|client)/',
      'runtime/ and cli/ only wire processes, threads and commands: what they use beyond ports, the domain, util and config.ts comes built from the composition root, through main.ts (docs/architecture.md, The runtime).',
    ),
    forbid(
      'runtime-serves-the-cli',
      layer('runtime'),
      layer('cli'),
      'Commands start processes (cli/serve.ts calls runtime/server.ts), never the other way.',
    ),
    forbid(
      'composition-through-main',
      '^src/(?!composition/|main\\.ts$)',
      layer('composition'),
      'The composition root has one door, main.ts: its files are not reached around it.',
    ),
    forbid(
      'composition-knows-no-process',
      '^src/(composition/|main\\.ts$)',
      '^src/(cli|runtime)/',
      'The composition root builds; threads, signals and commands use what it builds, not the other way.',
    ),
    forbid(
      'store-through-its-index',
      '^src/(?!adapters/store/)',
      '^src/adapters/store/(?!index\\.ts$)',
      "The rest of the program opens and locates stores through adapters/store/index.ts; the lock, caches and connections are the store's own (docs/architecture.md, Store).",
    ),
    forbid(
      'outbox-behind-the-store',
      '^src/(http|panel|endpoints|jobs|cli|runtime|client)/',
      '^src/ports/outbox\\.ts$',
      'The outbox is written through the Store in the transaction of the commit it follows, and consumed by its consumer (the SMPP server\'s receipt courier): no surface or other job reads or writes it (docs/decisions.md, "One outbox").',
    ),
    forbid(
      'jobs-start-from-the-table',
      '^src/(?!jobs/|composition/(jobs|dispatch|webhooks|iys-sync)\\.ts$)',
      '^src/jobs/(dispatcher|webhook-courier|count-deriver|retention-sweeper|otp-watch|iys-sync)\\.ts$',
      'Every background job is a row of the job table (src/composition/jobs.ts), built there or by the builder its row calls (dispatch.ts, webhooks.ts, iys-sync.ts): a thread starts the table, not jobs of its own (docs/architecture.md, The job table).',
    ),
    forbid(
      'client-stands-alone',
      layer('client'),
      '^src/(?!client/)',
      'The typed client is published on its own: it imports nothing else of ours.',
    ),
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '^(dist|node_modules)/' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    // Imports are written with .js extensions that name .ts files.
    enhancedResolveOptions: { extensions: ['.ts', '.tsx', '.js'] },
  },
};
