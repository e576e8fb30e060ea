/** One step of turning sequence `a` into sequence `b`. */
export type SequenceStep<T> = { op: 'SAME'; a: T; b: T } | { op: 'REMOVED'; a: T } | { op: 'ADDED'; b: T };

/**
 * The steps from `a` to `b` keeping their longest common subsequence (items `same` pairs up), in
 * order; where both sides change at one place, what `a` loses comes before what `b` gains. Quadratic
 * in time and memory, which is fine for the few hundred lines or tool calls of a turn.
 */
export function diffSequences<T>(a: readonly T[], b: readonly T[], same: (x: T, y: T) => boolean): SequenceStep<T>[] {
  // lengths[i][j]: the longest common subsequence of a[i..] and b[j..].
  const lengths = Array.from({ length: a.length + 1 }, () => new Uint32Array(b.length + 1));
  for (let i = a.length - 1; i >= 0; i--)
    for (let j = b.length - 1; j >= 0; j--)
      lengths[i]![j] = same(a[i]!, b[j]!) ? lengths[i + 1]![j + 1]! + 1 : Math.max(lengths[i + 1]![j]!, lengths[i]![j + 1]!);
  const steps: SequenceStep<T>[] = [];
  let i = 0;
  let j = 0;
  while (i < a.length || j < b.length) {
    if (i < a.length && j < b.length && same(a[i]!, b[j]!)) steps.push({ op: 'SAME', a: a[i++]!, b: b[j++]! });
    else if (j >= b.length || (i < a.length && lengths[i + 1]![j]! >= lengths[i]![j + 1]!)) steps.push({ op: 'REMOVED', a: a[i++]! });
    else steps.push({ op: 'ADDED', b: b[j++]! });
  }
  return steps;
}
