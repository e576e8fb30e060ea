import { z } from 'zod';

/** A yes/no setting: true, false, 1, 0, yes or no. */
export const bool = z.enum(['true', 'false', '1', '0', 'yes', 'no']).transform((v) => v === 'true' || v === '1' || v === 'yes');

/** A setting holding JSON, then checked by `schema`: its problems are named by their place in the value. */
export function json<T extends z.ZodType>(schema: T) {
  return z
    .string()
    .transform((text, ctx): unknown => {
      try {
        return JSON.parse(text);
      } catch (error) {
        ctx.addIssue({ code: 'custom', message: `not valid JSON (${(error as Error).message})` });
        return z.NEVER;
      }
    })
    .pipe(schema)
    .meta({ shownType: 'JSON' });
}

/** Another variable of the environment a loose model was given (a key named in a setting). */
export function variable(env: Record<string, unknown>, name: string): string | undefined {
  const value = env[name];
  return typeof value === 'string' ? value : undefined;
}
