// Runs `prisma generate` without the native schema engine. Generation needs no engine, but the
// CLI insists on finding one and would try to download it; any existing file satisfies the check.
import { spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { delimiter, resolve } from 'node:path';

const require = createRequire(import.meta.url);
const cli = require.resolve('prisma/build/index.js');
const result = spawnSync(process.execPath, [cli, 'generate'], {
  stdio: 'inherit',
  env: {
    ...process.env,
    // Generators such as prisma-pothos-types are found on PATH, as under `npm run`.
    PATH: [resolve('node_modules/.bin'), process.env.PATH].join(delimiter),
    PRISMA_SCHEMA_ENGINE_BINARY: process.env.PRISMA_SCHEMA_ENGINE_BINARY ?? process.execPath,
    PRISMA_HIDE_UPDATE_MESSAGE: '1',
    CHECKPOINT_DISABLE: '1',
  },
});
process.exit(result.status ?? 1);
