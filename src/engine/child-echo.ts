/**
 * Whether the answer a model is streaming is still a repeat of one of its child agents' answers
 * (compared trimmed), fed the whole text so far after each delta. A text that stops being the
 * beginning of an answer never becomes one again, and the part already compared is not compared
 * again: the checks of a whole answer cost time linear in its length, not quadratic.
 */
export class ChildEcho {
  private candidates: string[];
  /** Leading characters of the trimmed text known to begin every remaining candidate. */
  private matched = 0;

  constructor(childOutputs: readonly string[]) {
    this.candidates = childOutputs.map((output) => output.trim());
  }

  /** True while `text.trim()` begins some child's trimmed answer. */
  repeats(text: string): boolean {
    if (this.candidates.length === 0) return false;
    const start = text.trimStart();
    // Trailing whitespace may still turn out to be part of the answer: it is compared once more text follows it.
    const end = start.trimEnd().length;
    if (end > this.matched) {
      const added = start.slice(this.matched, end);
      this.candidates = this.candidates.filter((candidate) => candidate.startsWith(added, this.matched));
      this.matched = end;
    }
    return this.candidates.length > 0;
  }
}
