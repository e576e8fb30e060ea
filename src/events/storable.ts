/**
 * PostgreSQL cannot store every string JavaScript can hold: text and jsonb reject the NUL
 * character, and jsonb rejects lone UTF-16 surrogates. Model output and tool arguments can contain
 * either, so everything that reaches the database passes through here first: NUL and lone
 * surrogates become U+FFFD (the Unicode replacement character), the rest is returned as it was
 * (the same object when nothing needed replacing, so the common case allocates nothing).
 */
export function storable<T>(value: T): T {
  return clean(value) as T;
}

const REPLACEMENT = '\uFFFD';
// eslint-disable-next-line no-control-regex -- NUL is the one character PostgreSQL text and jsonb refuse
const NUL = /\u0000/g;

function cleanString(text: string): string {
  if (text.isWellFormed() && !text.includes('\u0000')) return text;
  return text.toWellFormed().replace(NUL, REPLACEMENT);
}

function clean(value: unknown): unknown {
  if (typeof value === 'string') return cleanString(value);
  if (value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) {
    let out: unknown[] | undefined;
    for (let i = 0; i < value.length; i++) {
      const item: unknown = value[i];
      const cleaned = clean(item);
      if (cleaned !== item) (out ??= [...value])[i] = cleaned;
    }
    return out ?? value;
  }
  if (value instanceof Date) return value;
  let out: Record<string, unknown> | undefined;
  // A loop over keys rather than Object.entries: this runs for every event, and allocates nothing when nothing changes.
  for (const key in value) {
    if (!Object.hasOwn(value, key)) continue;
    const item = (value as Record<string, unknown>)[key];
    const cleanedKey = cleanString(key);
    const cleaned = clean(item);
    if (cleaned !== item || cleanedKey !== key) {
      out ??= { ...(value as Record<string, unknown>) };
      if (cleanedKey !== key) delete out[key];
      out[cleanedKey] = cleaned;
    }
  }
  return out ?? value;
}
