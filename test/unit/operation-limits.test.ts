import { readFile, readdir } from 'node:fs/promises';
import { getIntrospectionQuery, Kind, parse, validate, type DocumentNode, type OperationDefinitionNode } from 'graphql';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/config.js';
import { EXAMPLE_TABS } from '../../src/graphql/graphiql.js';
import { documentRules, variableLimitErrors } from '../../src/graphql/operation-limits.js';
import { schema } from '../../src/graphql/schema.js';
import { variablesFor } from '../support/schema-values.js';

const limits = loadConfig({}).security.operations;

async function shippedDocuments(): Promise<[string, DocumentNode][]> {
  const files = (await readdir(new URL('../operations/', import.meta.url))).map((f) => new URL(`../operations/${f}`, import.meta.url));
  files.push(new URL('../../web/src/operations.graphql', import.meta.url));
  const documents: [string, DocumentNode][] = [];
  for (const file of files) documents.push([file.pathname.split('/').slice(-2).join('/'), parse(await readFile(file, 'utf8'))]);
  EXAMPLE_TABS.forEach((tab, i) => documents.push([`GraphiQL tab ${i}`, parse(tab.query)]));
  documents.push(['introspection', parse(getIntrospectionQuery({ descriptions: true, inputValueDeprecation: true }))]);
  return documents;
}

/** Each operation of a document on its own, with its fragments. */
function operationsOf(document: DocumentNode): [OperationDefinitionNode, DocumentNode][] {
  const fragments = document.definitions.filter((d) => d.kind === Kind.FRAGMENT_DEFINITION);
  return document.definitions
    .filter((d): d is OperationDefinitionNode => d.kind === Kind.OPERATION_DEFINITION)
    .map((op) => [op, { kind: Kind.DOCUMENT, definitions: [op, ...fragments] }]);
}

describe('operation limits', () => {
  it('let every operation the project ships (tests, chat app, GraphiQL, introspection) through at their defaults', async () => {
    for (const [name, document] of await shippedDocuments()) {
      expect(validate(schema, document, documentRules(limits)).map((e) => `${name}: ${e.message}`)).toEqual([]);
      for (const [operation, single] of operationsOf(document)) {
        const errors = variableLimitErrors(schema, single, variablesFor(schema, operation), operation.name?.value, limits);
        expect(errors.map((e) => `${name} ${operation.name?.value}: ${e.message}`)).toEqual([]);
      }
    }
  });
});
