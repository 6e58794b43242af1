// Lint runs in `npm test`. `any` is banned outright: types come from schemas and ports.
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

/**
 * Files of src/ are up to 300 lines (docs/architecture.md, "Layers and walls"). A line is a
 * line as `wc -l` counts it, comments and blank lines included: the limit is what a reader
 * has to read, and a file kept short by squeezing out its comments is not shorter to read.
 * A file over the limit is listed here with its reason, one line, the same reason its top
 * comment gives ("One file, long because ..."). A listed file is held at twice the limit
 * (`longFileMax`): past it, whatever the reason, it is two files. Not for tests and
 * benches: a test file is a list of cases each read alone (its length is the count of its
 * cases, and the shared setup is already in test/helpers/), and a bench is one experiment
 * read top to bottom, its machinery already in bench/lib/.
 */
const maxLines = 300;
const longFileMax = 2 * maxLines;
const longFiles = {
  'src/config.ts': 'the one options table: one entry per option is the point',
  'src/adapters/store/schema.ts': "Kysely's one `Database` type: every table's row in one place",
  'src/adapters/store/otp-store.ts': "the OTP tables are one aggregate, read together by the guard's one statement",
  'src/adapters/store/consent-store.ts': 'recording, filter, sync queue and panel reads share the rows and one rule',
  'src/adapters/store/panel-queries-store.ts':
    "each page's query is short; split, they would repeat the scoping and row types",
  'src/adapters/store/event-outbox.ts': "the outbox's writes share its statement builders and row shapes",
  'src/adapters/store/retention-store.ts': "every table's sweep follows the one batch rule kept in it",
  'src/smpp-server/smpp-server.ts': "one session's PDU dispatch: every handler shares the per-process state",
  'src/jobs/dispatcher.ts': 'its round, launch and recording share the window, lanes and heartbeat it holds',
  'src/http/openapi.ts': "one document's assembly, whose parts refer to each other",
};
/** Generated (npm run contract), not read by hand: no limit. */
const generated = ['src/client/openapi-types.ts'];

// A listed file that is gone or back under the limit leaves the list: the list stays true.
for (const file of Object.keys(longFiles)) {
  const path = fileURLToPath(new URL(file, import.meta.url));
  const lines = existsSync(path) ? readFileSync(path, 'utf8').replace(/\n$/, '').split('\n').length : 0;
  if (lines <= maxLines)
    throw new Error(`eslint.config.js: ${file} is ${lines === 0 ? 'gone' : `${lines} lines`}; take it off longFiles`);
}

export default tseslint.config(
  { ignores: ['dist/**', 'node_modules/**', 'data/**', '.tmp/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    files: ['**/*.ts', '**/*.tsx'],
    rules: {
      '@typescript-eslint/no-explicit-any': 'error',
      '@typescript-eslint/no-non-null-assertion': 'error',
      '@typescript-eslint/consistent-type-imports': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      'no-console': 'error',
    },
  },
  {
    // The composition root and the process wiring take options objects, not long lists of
    // positional parameters (docs/architecture.md, The runtime).
    files: ['src/main.ts', 'src/composition/**/*.ts', 'src/runtime/**/*.ts', 'src/cli/**/*.ts'],
    rules: { 'max-params': ['error', 4] },
  },
  {
    files: ['src/**/*.ts', 'src/**/*.tsx'],
    ignores: [...Object.keys(longFiles), ...generated],
    rules: { 'max-lines': ['error', { max: maxLines }] },
  },
  {
    files: Object.keys(longFiles),
    rules: { 'max-lines': ['error', { max: longFileMax }] },
  },
  {
    // The store's parts hold no dialect branches: what the dialects do differently is a member
    // of DialectSql (src/adapters/store/dialect-sql.ts, one implementation each). Choosing and
    // opening a store, and its migrations, are not parts.
    files: ['src/adapters/store/**/*.ts'],
    ignores: [
      'src/adapters/store/{open-store,store-presence,store-location,migrate}.ts',
      'src/adapters/store/{migrations,sqlite,postgres}/**',
    ],
    rules: {
      'no-restricted-syntax': [
        'error',
        {
          selector: 'BinaryExpression[operator=/^[!=]==?$/] > Literal[value=/^(sqlite|postgres)$/]',
          message: 'A dialect branch in a store part: make the difference a member of DialectSql (dialect-sql.ts).',
        },
      ],
    },
  },
  {
    files: ['**/*.js', '**/*.mjs', 'bin/haberci'],
    languageOptions: { globals: { process: 'readonly', console: 'readonly', URL: 'readonly' } },
  },
  {
    files: ['**/*.cjs'],
    languageOptions: { sourceType: 'commonjs', globals: { module: 'writable', require: 'readonly' } },
  },
);
