import type { z } from 'zod';
import { ValidationError } from './errors.js';

/** Validates input with a zod schema; failures become one ValidationError with field paths. */
export function parseInput<S extends z.ZodType>(schema: S, value: unknown, path: (string | number)[] = []): z.output<S> {
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  const issues = result.error.issues.map((issue) => ({
    path: [...path, ...issue.path.map((p) => (typeof p === 'symbol' ? String(p) : p))],
    message: issue.message,
  }));
  const first = issues[0]!;
  throw new ValidationError(`${first.path.join('.') || 'input'}: ${first.message}`, issues);
}
