/**
 * Turns a natural-language name into the kebab-case label REM uses as an entity key
 * ("Sarah Chen" -> "sarah-chen", "  Q3 Report!! " -> "q3-report", "Café Zoë" -> "cafe-zoe").
 * Returns '' when the input has no ASCII letters or digits left; callers decide whether that is an error.
 */
export function normalizeKey(input: string): string {
  return (
    input
      .trim()
      // NFKD both before and after lowercasing: compatibility forms such as "Ｑ" or "ℌ" only become
      // ASCII after decomposition, and some lowercase mappings ("İ" -> "i̇") introduce combining marks.
      .normalize('NFKD')
      .toLowerCase()
      .normalize('NFKD')
      .replace(/\p{M}+/gu, '')
      .replace(/[^a-z0-9]+/g, '-')
      .replace(/^-+|-+$/g, '')
  );
}
