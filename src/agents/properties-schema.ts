import type { ErrorObject } from 'ajv';
import { jsonSchemaAjv } from '../json-schema.js';
import type { FieldIssue } from '../errors.js';
import type { Locate, Path } from './yaml-located.js';

// Compiling only checks that `properties` is a usable schema; formats are not validated at run time here.
const ajvFor = jsonSchemaAjv({
  strict: true,
  allErrors: true,
  validateFormats: false,
  strictTypes: false,
  strictTuples: false,
  logger: false,
  addUsedSchema: false,
});

/**
 * Checks that an agent's `properties` and `required` make a usable JSON Schema (compiling it, not
 * validating formats), each issue located at the offending YAML node.
 */
export function propertiesSchemaIssues(properties: Record<string, unknown>, required: string[], locate: Locate): FieldIssue[] {
  const dialect = declaredDialect(properties);
  const schema = { ...(dialect && { $schema: dialect }), type: 'object', properties, required };
  const ajv = ajvFor(schema);
  if (!ajv.validateSchema(schema)) {
    const reported = new Set<string>();
    return (ajv.errors ?? []).flatMap((error) => {
      // A failed anyOf in the meta-schema yields several errors for one node; the first says the most.
      if (reported.has(error.instancePath)) return [];
      reported.add(error.instancePath);
      const path = pointerToPath(error.instancePath, schema);
      return [{ path, message: `invalid JSON schema: ${ajvMessage(error)}`, ...locate(path) }];
    });
  }
  try {
    ajv.compile(schema);
    return [];
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    const keyword = /unknown keyword: "([^"]+)"/.exec(message)?.[1];
    const path = (keyword !== undefined && findKeyword(properties, keyword)) || ['properties'];
    return [{ path, message: `invalid JSON schema: ${message}`, ...locate(path, keyword !== undefined) }];
  } finally {
    ajv.removeSchema(schema);
  }
}

// An agent document has no `$schema` of its own: properties pasted from a draft 2020-12 tool
// (zod 4's toJSONSchema) declare theirs, and the whole is checked under that draft.
function declaredDialect(properties: Record<string, unknown>): string | undefined {
  for (const schema of Object.values(properties)) {
    if (isRecord(schema) && typeof schema.$schema === 'string') return schema.$schema;
  }
  return undefined;
}

function ajvMessage(error: ErrorObject): string {
  const allowed = (error.params as { allowedValues?: unknown[] }).allowedValues;
  if (error.keyword === 'enum' && Array.isArray(allowed)) return `must be one of ${allowed.join(', ')}`;
  return error.message ?? error.keyword;
}

function pointerToPath(pointer: string, root: unknown): Path {
  const path: Path = [];
  let value = root;
  for (const encoded of pointer.split('/').slice(1)) {
    const segment = encoded.replaceAll('~1', '/').replaceAll('~0', '~');
    if (Array.isArray(value)) {
      path.push(Number(segment));
      value = value[Number(segment)];
    } else {
      path.push(segment);
      value = isRecord(value) ? value[segment] : undefined;
    }
  }
  return path;
}

// Walk schema positions only, so a property *named* like the keyword is not mistaken for it.
const SCHEMA_MAPS = new Set(['properties', 'patternProperties', '$defs', 'definitions', 'dependentSchemas']);
const DATA_KEYWORDS = new Set(['enum', 'const', 'default', 'examples', 'required']);

function findKeyword(properties: Record<string, unknown>, keyword: string): Path | undefined {
  for (const [name, schema] of Object.entries(properties)) {
    const found = findInSchema(schema, keyword, ['properties', name]);
    if (found) return found;
  }
  return undefined;
}

function findInSchema(schema: unknown, keyword: string, path: Path): Path | undefined {
  if (!isRecord(schema)) return undefined;
  for (const [key, value] of Object.entries(schema)) {
    if (key === keyword) return [...path, key];
    if (DATA_KEYWORDS.has(key)) continue;
    let found: Path | undefined;
    if (SCHEMA_MAPS.has(key) && isRecord(value)) {
      for (const [name, sub] of Object.entries(value)) {
        found ??= findInSchema(sub, keyword, [...path, key, name]);
      }
    } else if (Array.isArray(value)) {
      value.forEach((sub, index) => {
        found ??= findInSchema(sub, keyword, [...path, key, index]);
      });
    } else {
      found = findInSchema(value, keyword, [...path, key]);
    }
    if (found) return found;
  }
  return undefined;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}
