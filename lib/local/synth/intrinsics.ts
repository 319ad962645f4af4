/**
 * CloudFormation intrinsic functions, evaluated against one template's scope.
 * A reference the scope cannot give a value becomes a readable placeholder
 * (`<unresolved Ref X>`) and is reported, never thrown: the local runner
 * starts with what it can resolve and warns about the rest.
 */

export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

/** What one template's references stand for. */
export interface Scope {
  /** `Ref name`: a parameter, a pseudo parameter (but AWS::NoValue) or a resource; undefined when it has no local value. */
  ref(name: string): Json | undefined;
  getAtt(logicalId: string, attribute: string): Json | undefined;
  conditions?: Readonly<Record<string, Json>>;
  mappings?: Readonly<Record<string, Json>>;
  /** `Fn::GetStackOutput`: an output of another stack of the assembly, named by its name or ARN. */
  stackOutput?(stackName: string, outputName: string): Json | undefined;
  importValue?(exportName: string): Json | undefined;
}

/** Where a value sits in the template (`Stack:Logical.Properties.X`) and what could not be resolved there. */
export type Report = (where: string, what: string) => void;

/** Ref AWS::NoValue: removes the property or list element it stands in. */
const NO_VALUE = Symbol('AWS::NoValue');
type Value = Json | typeof NO_VALUE;
const plain = (value: Value | undefined): Json => (value === undefined || value === NO_VALUE ? null : value);

export const isRecord = (value: unknown): value is { [key: string]: Json } => typeof value === 'object' && value !== null && !Array.isArray(value);

/** The one key of `{ "Fn::X": ... }` / `{ "Ref": ... }`, when the object is an intrinsic. */
function intrinsicName(value: { [key: string]: Json }): string | undefined {
  const keys = Object.keys(value);
  return keys.length === 1 && (keys[0] === 'Ref' || keys[0]!.startsWith('Fn::')) ? keys[0] : undefined;
}

/** A resolved value as a string: numbers and booleans written out, lists and objects as JSON. */
export const text = (value: Json): string =>
  typeof value === 'string' ? value : typeof value === 'number' || typeof value === 'boolean' ? String(value) : JSON.stringify(value);

/** A resolved scalar as a number (templates write numbers as strings too), else the default. */
export function numberOr(value: Json | undefined, fallback: number): number {
  const number = typeof value === 'string' && value.trim() !== '' ? Number(value) : value;
  return typeof number === 'number' && Number.isFinite(number) ? number : fallback;
}

export function booleanOr(value: Json | undefined, fallback: boolean): boolean {
  return value === true || value === 'true' ? true : value === false || value === 'false' ? false : fallback;
}

export const stringOr = (value: Json | undefined, fallback: string): string => (typeof value === 'string' ? value : fallback);

export class Resolver {
  private readonly conditionValues = new Map<string, boolean>();
  private readonly conditionsInProgress = new Set<string>();

  constructor(
    private readonly scope: Scope,
    private readonly report: Report,
  ) {}

  /** The value with every intrinsic evaluated; undefined when it is (or its Fn::If picks) AWS::NoValue. */
  resolve(value: Json, where: string): Json | undefined {
    const out = this.value(value, where);
    return out === NO_VALUE ? undefined : out;
  }

  /** A named condition of the template (an unknown one is false, and reported). */
  condition(name: string, where: string): boolean {
    const known = this.conditionValues.get(name);
    if (known !== undefined) return known;
    const definition = this.scope.conditions?.[name];
    if (definition === undefined || this.conditionsInProgress.has(name)) {
      this.report(where, `Condition ${name}`);
      return false;
    }
    this.conditionsInProgress.add(name);
    const result = this.truth(definition, `${where}:Conditions.${name}`);
    this.conditionsInProgress.delete(name);
    this.conditionValues.set(name, result);
    return result;
  }

  private unresolved(where: string, what: string): string {
    this.report(where, what);
    return `<unresolved ${what}>`;
  }

  /** A condition that cannot be evaluated is false: the resource or branch it guards is left out. */
  private untrue(where: string, what: string): boolean {
    this.report(where, what);
    return false;
  }

  private value(value: Json, where: string): Value {
    if (Array.isArray(value)) {
      return value.map((item, i) => this.value(item, `${where}[${i}]`)).filter((item): item is Json => item !== NO_VALUE);
    }
    if (!isRecord(value)) return value;
    const name = intrinsicName(value);
    if (name !== undefined) return this.intrinsic(name, value[name]!, where);
    const out: { [key: string]: Json } = {};
    for (const [key, item] of Object.entries(value)) {
      const resolved = this.value(item, `${where}.${key}`);
      if (resolved !== NO_VALUE) out[key] = resolved;
    }
    return out;
  }

  private intrinsic(name: string, args: Json, where: string): Value {
    const at = `${where}.${name}`;
    switch (name) {
      case 'Ref':
        return this.ref(args, where);
      case 'Fn::GetAtt':
        return this.getAtt(args, at);
      case 'Fn::Sub':
        return this.sub(args, at);
      case 'Fn::Join': {
        const [delimiter, list] = Array.isArray(args) ? args : [];
        const items = list === undefined ? undefined : this.value(list, `${at}[1]`);
        if (typeof delimiter !== 'string' || !Array.isArray(items)) return this.unresolved(at, 'Fn::Join (malformed)');
        return items.map(text).join(delimiter);
      }
      case 'Fn::Select': {
        const [index, list] = Array.isArray(args) ? args.map((arg, i) => this.value(arg, `${at}[${i}]`)) : [];
        const items = typeof list === 'string' ? list.split(',') : list;
        const i = Number(index);
        if (!Array.isArray(items) || !Number.isInteger(i) || i < 0 || i >= items.length) return this.unresolved(at, 'Fn::Select (index out of range)');
        return items[i]!;
      }
      case 'Fn::Split': {
        const [delimiter, source] = Array.isArray(args) ? args.map((arg, i) => this.value(arg, `${at}[${i}]`)) : [];
        if (typeof delimiter !== 'string' || typeof source !== 'string') return this.unresolved(at, 'Fn::Split (malformed)');
        return source.split(delimiter);
      }
      case 'Fn::If': {
        const [condition, whenTrue, whenFalse] = Array.isArray(args) ? args : [];
        if (typeof condition !== 'string' || whenTrue === undefined || whenFalse === undefined) return this.unresolved(at, 'Fn::If (malformed)');
        return this.condition(condition, at) ? this.value(whenTrue, `${at}[1]`) : this.value(whenFalse, `${at}[2]`);
      }
      case 'Fn::Equals':
      case 'Fn::Not':
      case 'Fn::And':
      case 'Fn::Or':
        return this.truth({ [name]: args }, where);
      case 'Fn::FindInMap': {
        const keys: Json[] = Array.isArray(args) ? args.slice(0, 3).map((arg, i) => plain(this.value(arg, `${at}[${i}]`))) : [];
        const found = keys.reduce<Json | undefined>((node, key) => (isRecord(node) && typeof key === 'string' ? node[key] : undefined), this.scope.mappings);
        return found === undefined || keys.length < 3 ? this.unresolved(at, `Fn::FindInMap ${keys.map(text).join('.')}`) : this.value(found, at);
      }
      case 'Fn::Base64': {
        const decoded = this.value(args, at);
        return typeof decoded === 'string' ? Buffer.from(decoded).toString('base64') : this.unresolved(at, 'Fn::Base64 (not a string)');
      }
      case 'Fn::ImportValue': {
        const exportName = this.value(args, at);
        const found = typeof exportName === 'string' ? this.scope.importValue?.(exportName) : undefined;
        return found ?? this.unresolved(at, `Fn::ImportValue ${text(plain(exportName))}`);
      }
      case 'Fn::GetStackOutput': {
        const spec = this.value(args, at);
        const stack = isRecord(spec) ? spec.StackName : undefined;
        const output = isRecord(spec) ? spec.OutputName : undefined;
        const found = typeof stack === 'string' && typeof output === 'string' ? this.scope.stackOutput?.(stack, output) : undefined;
        return found ?? this.unresolved(at, `Fn::GetStackOutput ${text(stack ?? null)}.${text(output ?? null)}`);
      }
      default:
        return this.unresolved(at, name);
    }
  }

  private ref(args: Json, where: string): Value {
    if (typeof args !== 'string') return this.unresolved(where, 'Ref (malformed)');
    if (args === 'AWS::NoValue') return NO_VALUE;
    return this.scope.ref(args) ?? this.unresolved(where, `Ref ${args}`);
  }

  private getAtt(args: Json, where: string): Value {
    // `"X.Attr"` is the string form; an attribute may itself hold dots (`Outputs.Name`).
    const dot = typeof args === 'string' ? args.indexOf('.') : -1;
    const parts = typeof args === 'string' ? (dot > 0 ? [args.slice(0, dot), args.slice(dot + 1)] : []) : Array.isArray(args) ? args : [];
    const [logicalId, attribute] = parts.map((part, i) => this.value(part, `${where}[${i}]`));
    if (typeof logicalId !== 'string' || typeof attribute !== 'string' || logicalId === '') return this.unresolved(where, 'Fn::GetAtt (malformed)');
    return this.scope.getAtt(logicalId, attribute) ?? this.unresolved(where, `Fn::GetAtt ${logicalId}.${attribute}`);
  }

  private sub(args: Json, where: string): Value {
    const [body, variables]: (Json | undefined)[] = typeof args === 'string' ? [args, {}] : Array.isArray(args) ? args : [];
    if (typeof body !== 'string' || !isRecord(variables)) return this.unresolved(where, 'Fn::Sub (malformed)');
    return body.replace(/\$\{([^}]*)\}/g, (whole, name: string) => {
      // `${!Literal}` is written out as `${Literal}`.
      if (name.startsWith('!')) return `\${${name.slice(1)}}`;
      const variable = variables[name];
      const value =
        variable !== undefined
          ? this.value(variable, `${where}[1].${name}`)
          : name.includes('.') && !name.startsWith('AWS::')
            ? this.getAtt(name, `${where}.\${${name}}`)
            : this.ref(name, `${where}.\${${name}}`);
      return value === NO_VALUE ? whole : text(value);
    });
  }

  private truth(expression: Json, where: string): boolean {
    if (typeof expression === 'boolean') return expression;
    if (!isRecord(expression)) return this.untrue(where, 'condition (malformed)');
    if (typeof expression.Condition === 'string' && Object.keys(expression).length === 1) return this.condition(expression.Condition, where);
    const name = intrinsicName(expression);
    const args = name === undefined ? undefined : expression[name];
    const at = `${where}.${name}`;
    const list = Array.isArray(args) ? args : [];
    switch (name) {
      case 'Fn::Equals': {
        const [a, b] = list.map((arg, i) => this.value(arg, `${at}[${i}]`)).map((side) => text(plain(side)));
        return list.length === 2 && a === b;
      }
      case 'Fn::Not':
        return !this.truth(list[0] ?? null, `${at}[0]`);
      case 'Fn::And':
        return list.every((item, i) => this.truth(item, `${at}[${i}]`));
      case 'Fn::Or':
        return list.some((item, i) => this.truth(item, `${at}[${i}]`));
      default: {
        // Fn::If and friends may yield a boolean or a "true"/"false" string.
        const value = this.value(expression, where);
        if (value === true || value === 'true') return true;
        if (value === false || value === 'false') return false;
        return this.untrue(where, 'condition (not a boolean)');
      }
    }
  }
}
