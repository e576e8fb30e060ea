#!/usr/bin/env node
// The `remgraph` command: runs the compiled CLI (dist/server/main.js), first rebuilding whatever is older
// than its sources (a few milliseconds when nothing changed). `npm run dev` runs the TypeScript
// directly instead, in watch mode.
import { ensureBuilt } from '../scripts/build.mjs';

const command = process.argv[2] ?? 'serve';
await ensureBuilt(['server']);
if ((command === 'serve' || command === 'migrate') && !process.env.DATABASE_URL) {
  // Without it a new embedded database runs initdb itself, which takes seconds longer.
  await ensureBuilt(['database']).catch((error) => console.error(`remgraph: the database template was not built: ${error.message}`));
}
if (command === 'serve') {
  // Without the chat app the server still runs (/ says how to build it); GraphQL does not need it.
  await ensureBuilt(['web']).catch((error) => console.error(`remgraph: the chat app was not built: ${error.message}`));
}
await import('../dist/server/main.js');
