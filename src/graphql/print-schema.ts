import { lexicographicSortSchema, printSchema } from 'graphql';
import { schema } from './schema.js';

/** The SDL committed as schema.graphql; a test fails when the two differ. */
export function printSchemaSdl(): string {
  return `${printSchema(lexicographicSortSchema(schema))}\n`;
}
