/**
 * Builds `SET #a = :a, …` plus `#status IN (:from0, …)` for a guarded state
 * transition, with the attribute names and values both need.
 */
export function guardedSet(set: Record<string, unknown>, from: readonly string[]) {
  const names: Record<string, string> = { '#status': 'status' };
  const values: Record<string, unknown> = {};
  const assignments: string[] = [];
  for (const [field, value] of Object.entries(set)) {
    names[`#${field}`] = field;
    values[`:${field}`] = value;
    assignments.push(`#${field} = :${field}`);
  }
  for (const [i, status] of from.entries()) values[`:from${i}`] = status;
  return { names, values, update: `SET ${assignments.join(', ')}`, condition: `#status IN (${from.map((_, i) => `:from${i}`).join(', ')})` };
}

/** `#a = :a AND …` over the defined filters, for a FilterExpression. */
export function equalityFilter(filters: Record<string, unknown>) {
  const names: Record<string, string> = {};
  const values: Record<string, unknown> = {};
  const conditions: string[] = [];
  for (const [field, value] of Object.entries(filters)) {
    if (value === undefined) continue;
    names[`#${field}`] = field;
    values[`:${field}`] = value;
    conditions.push(`#${field} = :${field}`);
  }
  return conditions.length ? { expression: conditions.join(' AND '), names, values } : undefined;
}
