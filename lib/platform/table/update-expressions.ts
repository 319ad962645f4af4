/**
 * Update expressions built from plain objects, each with the attribute
 * names and values it uses (DynamoDB refuses names or values an expression
 * does not use, so each builder names only its own). An attribute `a` is
 * `#a` and its value `:a`: a caller adding a condition uses other
 * placeholders, or these for the same attributes.
 */

/**
 * `SET #a = :a, …` over the fields given (one whose value is undefined is
 * left as it is; null is stored as null), then `REMOVE #r, …` of `remove`.
 */
export function setFields(set: Record<string, unknown>, remove: readonly string[] = []) {
  const names: Record<string, string> = {};
  const values: Record<string, unknown> = {};
  const assignments: string[] = [];
  for (const [field, value] of Object.entries(set)) {
    if (value === undefined) continue;
    names[`#${field}`] = field;
    values[`:${field}`] = value;
    assignments.push(`#${field} = :${field}`);
  }
  for (const field of remove) names[`#${field}`] = field;
  const clauses = [
    ...(assignments.length > 0 ? [`SET ${assignments.join(', ')}`] : []),
    ...(remove.length > 0 ? [`REMOVE ${remove.map((field) => `#${field}`).join(', ')}`] : []),
  ];
  if (clauses.length === 0) throw new RangeError('an update sets or removes something');
  return { names, values, update: clauses.join(' ') };
}

/**
 * `SET #a = :a, …` (setFields) plus `#status IN (:from0, …)` for a guarded
 * state transition, with the attribute names and values both need.
 */
export function guardedSet(set: Record<string, unknown>, from: readonly string[]) {
  const { names, values, update } = setFields(set);
  names['#status'] = 'status';
  for (const [i, status] of from.entries()) values[`:from${i}`] = status;
  return { names, values, update, condition: `#status IN (${from.map((_, i) => `:from${i}`).join(', ')})` };
}

/**
 * `SET #k = if_not_exists(#k, :k), … ADD #c :c, …`: adds `counts` to the
 * item's counters (one never written starts at 0; a count of 0 is left
 * out), and writes `ifAbsent` only where the item has no such attribute yet
 * (a counter item's owner and kind, written by its first count).
 */
export function addCounts(counts: Record<string, number>, ifAbsent: Record<string, unknown> = {}) {
  const names: Record<string, string> = {};
  const values: Record<string, unknown> = {};
  const initial: string[] = [];
  const adds: string[] = [];
  for (const [field, value] of Object.entries(ifAbsent)) {
    names[`#${field}`] = field;
    values[`:${field}`] = value;
    initial.push(`#${field} = if_not_exists(#${field}, :${field})`);
  }
  for (const [field, count] of Object.entries(counts)) {
    if (count === 0) continue;
    names[`#${field}`] = field;
    values[`:${field}`] = count;
    adds.push(`#${field} :${field}`);
  }
  if (adds.length === 0) throw new RangeError('a count adds something');
  return { names, values, update: `${initial.length > 0 ? `SET ${initial.join(', ')} ` : ''}ADD ${adds.join(', ')}` };
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
