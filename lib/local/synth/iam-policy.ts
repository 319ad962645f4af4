import type { PolicyStatement } from './model.js';

/**
 * Identity-policy evaluation for the local IAM proxy, written here rather
 * than taken from `@cloud-copilot/iam-simulate`: that package is AGPL-3.0
 * and pulls a large data package, and the proxy only needs what CDK grants
 * produce. Left out: policy variables (`${aws:username}`), resource
 * policies, permission boundaries, SCPs, Date operators.
 */

export type Decision = 'allowed' | 'implicitDeny' | 'explicitDeny';

export interface IamRequest {
  action: string;
  resource: string;
  /** Condition keys of the request (`dynamodb:LeadingKeys`, ...); arrays are multivalued keys. */
  context?: Record<string, string | string[]>;
}

const reported = new Set<string>();
const warnOnce = (operator: string) => {
  if (reported.has(operator)) return;
  reported.add(operator);
  console.warn(`IAM condition operator ${operator} is not supported locally: statements using it never match.`);
};

export function evaluate(statements: PolicyStatement[], request: IamRequest, onUnknownOperator: (operator: string) => void = warnOnce): Decision {
  const context = new Map(Object.entries(request.context ?? {}).map(([key, value]) => [key.toLowerCase(), typeof value === 'string' ? [value] : value]));
  const applies = (statement: PolicyStatement) =>
    matchesAny(statement.Action, statement.NotAction, request.action, true) &&
    matchesAny(statement.Resource, statement.NotResource, request.resource, false) &&
    conditionsHold(statement.Condition ?? {}, context, onUnknownOperator);
  const matching = statements.filter(applies);
  if (matching.some((statement) => statement.Effect === 'Deny')) return 'explicitDeny';
  return matching.some((statement) => statement.Effect === 'Allow') ? 'allowed' : 'implicitDeny';
}

const list = (value: string | string[] | undefined) => (value === undefined ? undefined : typeof value === 'string' ? [value] : value);

// A statement without Action/NotAction (or Resource/NotResource) is invalid in IAM: it grants nothing.
function matchesAny(patterns: string | string[] | undefined, notPatterns: string | string[] | undefined, value: string, ignoreCase: boolean): boolean {
  const positive = list(patterns);
  if (positive) return positive.some((pattern) => globMatch(pattern, value, ignoreCase));
  const negative = list(notPatterns);
  return negative !== undefined && !negative.some((pattern) => globMatch(pattern, value, ignoreCase));
}

function globMatch(pattern: string, value: string, ignoreCase = false): boolean {
  const source = pattern
    .replace(/[.+^${}()|[\]\\]/g, '\\$&')
    .replace(/\*/g, '.*')
    .replace(/\?/g, '.');
  return new RegExp(`^${source}$`, ignoreCase ? 'is' : 's').test(value);
}

// ARN operators compare each of the six colon-separated parts on its own, so `*` never spans a colon before the resource part.
function arnMatch(pattern: string, value: string): boolean {
  const [patternParts, valueParts] = [pattern.split(':'), value.split(':')];
  if (patternParts.length < 6 || valueParts.length < 6) return pattern === '*';
  const resource = (parts: string[]) => parts.slice(5).join(':');
  return patternParts.slice(0, 5).every((part, index) => globMatch(part, valueParts[index]!)) && globMatch(resource(patternParts), resource(valueParts));
}

const numeric = (compare: (a: number, b: number) => boolean) => (actual: string, expected: string) => {
  const [a, b] = [Number(actual), Number(expected)];
  return !Number.isNaN(a) && !Number.isNaN(b) && compare(a, b);
};

/** Each positive operator; its `...Not...` form is its negation (no policy value matches). */
const OPERATORS: Record<string, (actual: string, expected: string) => boolean> = {
  StringEquals: (a, e) => a === e,
  StringEqualsIgnoreCase: (a, e) => a.toLowerCase() === e.toLowerCase(),
  StringLike: (a, e) => globMatch(e, a),
  ArnEquals: (a, e) => arnMatch(e, a),
  ArnLike: (a, e) => arnMatch(e, a),
  Bool: (a, e) => a.toLowerCase() === e.toLowerCase(),
  NumericEquals: numeric((a, b) => a === b),
  NumericLessThan: numeric((a, b) => a < b),
  NumericLessThanEquals: numeric((a, b) => a <= b),
  NumericGreaterThan: numeric((a, b) => a > b),
  NumericGreaterThanEquals: numeric((a, b) => a >= b),
};
const NEGATED: Record<string, string> = {
  StringNotEquals: 'StringEquals',
  StringNotEqualsIgnoreCase: 'StringEqualsIgnoreCase',
  StringNotLike: 'StringLike',
  ArnNotEquals: 'ArnEquals',
  ArnNotLike: 'ArnLike',
  NumericNotEquals: 'NumericEquals',
};

type ConditionBlock = NonNullable<PolicyStatement['Condition']>;

function conditionsHold(block: ConditionBlock, context: Map<string, string[]>, onUnknownOperator: (operator: string) => void): boolean {
  return Object.entries(block).every(([fullOperator, keys]) => {
    const test = operatorTest(fullOperator);
    if (!test) {
      onUnknownOperator(fullOperator);
      return false;
    }
    return Object.entries(keys).every(([key, expected]) => {
      const values = (Array.isArray(expected) ? expected : [expected]).map(String);
      return test(context.get(key.toLowerCase()), values);
    });
  });
}

/** How one operator (with its set qualifier and IfExists) judges a context key's values against the policy's. */
function operatorTest(fullOperator: string): ((actual: string[] | undefined, expected: string[]) => boolean) | undefined {
  const [qualifier, operatorWithSuffix] = fullOperator.includes(':') ? fullOperator.split(':', 2) : [undefined, fullOperator];
  if (qualifier !== undefined && qualifier !== 'ForAllValues' && qualifier !== 'ForAnyValue') return undefined;
  const ifExists = operatorWithSuffix!.endsWith('IfExists');
  const operator = ifExists ? operatorWithSuffix!.slice(0, -'IfExists'.length) : operatorWithSuffix!;
  if (operator === 'Null') {
    if (qualifier || ifExists) return undefined;
    return (actual, expected) => expected.some((value) => (value.toLowerCase() === 'true') === (actual === undefined || actual.length === 0));
  }
  const negated = operator in NEGATED;
  const compare = OPERATORS[NEGATED[operator] ?? operator];
  if (!compare) return undefined;
  const anyMatches = (value: string, expected: string[]) => expected.some((candidate) => compare(value, candidate));
  const holds = (value: string, expected: string[]) => anyMatches(value, expected) !== negated;
  return (actual, expected) => {
    const absent = actual === undefined || actual.length === 0;
    if (qualifier === 'ForAllValues') return absent || actual.every((value) => holds(value, expected));
    if (qualifier === 'ForAnyValue') return !absent && actual.some((value) => holds(value, expected));
    if (absent) return ifExists || negated;
    // A multivalued key without a set qualifier: the positive operator matches when one value matches; the negated one when none does.
    return actual.some((value) => anyMatches(value, expected)) !== negated;
  };
}
