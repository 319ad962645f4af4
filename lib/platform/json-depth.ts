/**
 * How deep `value` nests objects and arrays (a scalar is 0, `{}` is 1),
 * walked with a stack of its own: a value of any depth is measured without
 * recursion. Stops counting once past `stopAbove`.
 */
export function jsonDepth(value: unknown, stopAbove = Number.POSITIVE_INFINITY): number {
  let deepest = 0;
  const pending: Array<{ value: unknown; depth: number }> = [{ value, depth: 0 }];
  for (let next = pending.pop(); next; next = pending.pop()) {
    if (next.value === null || typeof next.value !== 'object') continue;
    const depth = next.depth + 1;
    if (depth > deepest) deepest = depth;
    if (deepest > stopAbove) return deepest;
    for (const child of Array.isArray(next.value) ? next.value : Object.values(next.value)) pending.push({ value: child, depth });
  }
  return deepest;
}
