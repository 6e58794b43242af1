/**
 * The walls of the house (docs/architecture.md), checked by `npm test` (`npm run walls`).
 * Layers, from the bottom: domain and util import nothing of ours; ports see the domain;
 * services and jobs see ports and the domain; endpoints see services; the HTTP and panel
 * surfaces see endpoints and services; adapters implement ports; only the composition root
 * (main.ts, runtime/, cli/) sees everything.
 */
const layer = (name) => `^src/${name}(/|\\.ts$)`;
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
      '^src/(adapters|jobs|http|endpoints|panel|cli|runtime)/|^src/main\\.ts$',
      'Services reach the outside world only through ports.',
    ),
    forbid(
      'jobs-use-ports',
      layer('jobs'),
      '^src/(adapters|http|endpoints|panel|cli|runtime)/|^src/main\\.ts$',
      'Background loops reach the store and carriers only through ports.',
    ),
    forbid(
      'endpoints-use-services',
      layer('endpoints'),
      '^src/(adapters|jobs|panel|cli|runtime)/|^src/main\\.ts$',
      'An endpoint parses, calls a service, and maps the answer.',
    ),
    forbid(
      'http-takes-surfaces',
      layer('http'),
      '^src/(adapters|jobs|panel|cli|runtime)/|^src/main\\.ts$',
      'The HTTP server mounts surfaces it is given; it does not pick adapters.',
    ),
    forbid(
      'panel-uses-services',
      layer('panel'),
      '^src/(adapters|jobs|endpoints|cli|runtime)/|^src/main\\.ts$',
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
      'adapters-implement-ports',
      layer('adapters'),
      '^src/(services|jobs|http|endpoints|panel|cli|runtime)/|^src/main\\.ts$',
      'Adapters implement ports; they never call up into the application.',
    ),
    forbid(
      'store-through-its-index',
      '^src/(?!adapters/store/)',
      '^src/adapters/store/(?!index\\.ts$)',
      "The rest of the program opens and locates stores through adapters/store/index.ts; the lock, caches and connections are the store's own (docs/architecture.md, Store).",
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
