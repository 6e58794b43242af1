import { processIo, runCli } from './program.js';

// The process exits on a failure; after a success it ends when its work does (an admin
// command at once, `serve` on a signal).
const code = await runCli(process.argv.slice(2), processIo);
if (code !== 0) process.exit(code);
