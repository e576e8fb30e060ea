import type { CodegenConfig } from '@graphql-codegen/cli';

// Typed documents for the operations in test/operations (and, later, examples/). The tests import
// them, so a schema change that breaks a client breaks the build; test/unit/codegen.test.ts fails
// when the committed output is stale (`npm run codegen` refreshes it).
const config: CodegenConfig = {
  schema: 'schema.graphql',
  documents: ['test/operations/**/*.graphql'],
  ignoreNoDocuments: true,
  generates: {
    'test/generated/': {
      preset: 'client',
      presetConfig: { fragmentMasking: false },
      config: {
        useTypeImports: true,
        enumsAsTypes: true,
        emitLegacyCommonJSImports: false,
        scalars: { DateTime: 'string', JSON: 'unknown', ID: 'string' },
      },
    },
  },
};

export default config;
