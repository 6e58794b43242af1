#!/usr/bin/env node
// Writes the contract files from the built endpoint table (run after `npm run build`):
//   docs/openapi-examples.json   real answers of a fresh in-memory server, one success and
//                                one refusal per endpoint: the document's examples
//   docs/openapi.json            the OpenAPI 3.1 document the server serves at /openapi.json
//   src/client/openapi-types.ts  its TypeScript types, for the client (openapi-typescript)
// test/contract/openapi-document.test.ts fails when the last two differ from what this
// writes, or when an example no longer matches its schema.
// Usage: npm run contract   (builds, writes, builds again)
import { writeFileSync } from 'node:fs';
import { captureExamples } from '../dist/test/helpers/contract-examples.js';
import { contractFiles } from '../dist/test/helpers/contract-files.js';

const examples = await captureExamples();
writeFileSync('docs/openapi-examples.json', `${JSON.stringify(examples, null, 2)}\n`);
console.log('wrote docs/openapi-examples.json');
const files = await contractFiles();
for (const [path, text] of Object.entries(files)) {
  writeFileSync(path, text);
  console.log(`wrote ${path}`);
}
