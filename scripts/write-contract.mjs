#!/usr/bin/env node
// Writes the contract files from the built endpoint table (run after `npm run build`):
//   docs/openapi.json            the OpenAPI 3.1 document the server serves at /openapi.json
//   src/client/openapi-types.ts  its TypeScript types, for the client (openapi-typescript)
// test/contract/openapi-document.test.ts fails when either differs from what this writes.
// Usage: npm run contract   (builds, writes, builds again)
import { writeFileSync } from 'node:fs';
import { contractFiles } from '../dist/test/helpers/contract-files.js';

const files = await contractFiles();
for (const [path, text] of Object.entries(files)) {
  writeFileSync(path, text);
  console.log(`wrote ${path}`);
}
