/** "1 model call", "2 model calls". */
export const plural = (n: number, noun: string): string => `${n} ${noun}${n === 1 ? '' : 's'}`;

/** "283 tokens"; "~41 tokens (estimated)" when the provider reported none for some model call (it was cut short). */
export const tokenCount = (usage: { inputTokens: number; outputTokens: number; estimated?: boolean }): string => {
  const total = plural(usage.inputTokens + usage.outputTokens, 'token');
  return usage.estimated ? `~${total} (estimated)` : total;
};
