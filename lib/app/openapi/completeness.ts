/**
 * What a generated client and its reader rely on in every operation of the
 * document (its paths and its webhooks): a summary and a description; an
 * example on each body a client sends or reads (JSON, problem documents,
 * event streams); the codes of each refusal named in its description; a
 * list's page shape stated where it is answered; no path of this repository
 * in any text, which a reader cannot open. `npm run lint:openapi` and a unit
 * test fail on each fault; the examples' validity is the test's (against
 * their schemas) and redocly's.
 */

type Json = Record<string, unknown>;
interface Media {
  schema?: Json;
  example?: unknown;
}
interface Operation {
  summary?: string;
  description?: string;
  requestBody?: { content?: Record<string, Media> };
  responses?: Record<string, { description?: string; content?: Record<string, Media> }>;
}

const METHODS = ['get', 'put', 'post', 'delete', 'patch', 'head', 'options', 'trace'];

/** Text that points into the repository: a client sees none of it. */
export const REPOSITORY_REFERENCE = /lib\/|functions\/|\.ts\b|docs\/|README|decisions\.md/;

/** Bodies a client parses or a reader copies, which need an example. */
const needsExample = (type: string) => type === 'application/json' || type.endsWith('+json') || type === 'text/event-stream';

/** Each operation of the document as `[label, operation]`: `GET /v2/runs`, `webhook run.completed`. */
function operationsOf(document: Json): Array<[string, Operation]> {
  const found: Array<[string, Operation]> = [];
  for (const [where, items] of [
    ['', document.paths],
    ['webhook ', document.webhooks],
  ] as const) {
    for (const [path, item] of Object.entries((items ?? {}) as Record<string, Record<string, Operation>>)) {
      for (const method of METHODS) if (item[method]) found.push([where ? `${where}${path}` : `${method.toUpperCase()} ${path}`, item[method]]);
    }
  }
  return found;
}

/** Every `description` and `summary` in the document, with where it is. */
function textsOf(value: unknown, at: string, found: Array<[string, string]> = []): Array<[string, string]> {
  if (Array.isArray(value)) {
    for (const [i, item] of value.entries()) textsOf(item, `${at}/${i}`, found);
  } else if (value !== null && typeof value === 'object') {
    for (const [key, item] of Object.entries(value)) {
      // Examples are data a client sends or gets, not text about the service.
      if (key === 'example' || key === 'examples') continue;
      if ((key === 'description' || key === 'summary') && typeof item === 'string') found.push([`${at}/${key}`, item]);
      else textsOf(item, `${at}/${key}`, found);
    }
  }
  return found;
}

/** The component a media type's schema refers to, if it is a `$ref`. */
const componentOf = (document: Json, media: Media): Json | undefined => {
  const ref = media.schema?.$ref;
  const schemas = ((document.components as Json | undefined)?.schemas ?? {}) as Record<string, Json>;
  return typeof ref === 'string' ? schemas[ref.replace('#/components/schemas/', '')] : undefined;
};

/** One line per fault of `document`; none when every operation has what it needs. */
export function documentFaults(document: Json): string[] {
  const faults: string[] = [];
  for (const [label, operation] of operationsOf(document)) {
    if (!operation.summary?.trim()) faults.push(`${label}: no summary`);
    if (!operation.description?.trim()) faults.push(`${label}: no description`);
    for (const [type, media] of Object.entries(operation.requestBody?.content ?? {})) {
      if (needsExample(type) && media.example === undefined) faults.push(`${label}: its ${type} request body has no example`);
    }
    for (const [status, response] of Object.entries(operation.responses ?? {})) {
      for (const [type, media] of Object.entries(response.content ?? {})) {
        if (needsExample(type) && media.example === undefined) faults.push(`${label}: its ${status} ${type} body has no example`);
        if (type === 'application/problem+json' && !/`[a-z][a-z0-9_]*`/.test(response.description ?? '')) {
          faults.push(`${label}: its ${status} names no problem code`);
        }
        const page = componentOf(document, media)?.description;
        if (typeof page === 'string' && page.startsWith('Pagination:') && !operation.description?.includes(page)) {
          faults.push(`${label}: answers a page without saying which shape`);
        }
      }
    }
  }
  for (const [at, text] of textsOf(document, '#')) {
    if (REPOSITORY_REFERENCE.test(text)) faults.push(`${at}: points into the repository (${REPOSITORY_REFERENCE.exec(text)?.[0]})`);
  }
  return faults;
}
