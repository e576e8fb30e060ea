import { defineConfig } from 'prisma/config';

// The Prisma CLI is used only for `prisma generate` here: migrations run through the wasm schema
// engine in src/db/migrations.ts, because the native engine cannot be downloaded offline.
export default defineConfig({
  schema: 'prisma/schema.prisma',
  migrations: { path: 'prisma/migrations' },
});
