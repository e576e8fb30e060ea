import type { CodegenConfig } from '@graphql-codegen/cli';

// Typed documents for the operations of the tests (test/operations), the chat app (web/src), the
// typed client example (examples/) and the CLI's client commands (src/cli). A schema change that
// breaks a client breaks the build; test/unit/codegen.test.ts fails when the committed output is
// stale (`npm run codegen` refreshes it).
const typedDocuments = {
  useTypeImports: true,
  enumsAsTypes: true,
  emitLegacyCommonJSImports: false,
  scalars: { DateTime: 'string', JSON: 'unknown', ID: 'string', File: 'File' },
};

const config: CodegenConfig = {
  schema: 'schema.graphql',
  ignoreNoDocuments: true,
  generates: {
    'test/generated/': {
      documents: ['test/operations/**/*.graphql'],
      preset: 'client',
      presetConfig: { fragmentMasking: false },
      config: typedDocuments,
    },
    // The browser and the example send documents as strings: no graphql-js in the page or script.
    'web/src/generated/': {
      documents: ['web/src/**/*.graphql'],
      preset: 'client',
      presetConfig: { fragmentMasking: false },
      config: { ...typedDocuments, documentMode: 'string' },
    },
    'examples/generated/': {
      documents: ['examples/**/*.graphql'],
      preset: 'client',
      presetConfig: { fragmentMasking: false },
      config: { ...typedDocuments, documentMode: 'string' },
    },
    'src/cli/generated/': {
      documents: ['src/cli/**/*.graphql'],
      preset: 'client',
      presetConfig: { fragmentMasking: false },
      config: { ...typedDocuments, documentMode: 'string' },
    },
  },
};

export default config;
