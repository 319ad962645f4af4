import { createClient, ProblemError } from '@workflow-service/client';

/**
 * The console's two clients of the API (@workflow-service/client):
 *
 * - `api`: every public call, with the console's short-lived bearer token and
 *   no cookie. A 401 to a call that carried the token ends the session.
 * - `sessionApi`: the three calls of the browser session (sign in, mint,
 *   sign out), with the HttpOnly session cookie and no bearer token.
 *
 * session.ts plugs the token and the 401 handling in through `auth`, so
 * this module needs nothing from it.
 */
export const auth = {
  token: async (): Promise<string> => {
    throw new Error('Not signed in.');
  },
  unauthorized: (): void => {},
};

async function watched(request: Request): Promise<Response> {
  const response = await fetch(request);
  if (response.status === 401 && request.headers.has('Authorization')) auth.unauthorized();
  return response;
}

export const api = createClient({ baseUrl: location.origin, token: () => auth.token(), fetch: watched, credentials: 'omit', retries: 2 });

export const sessionApi = createClient({ baseUrl: location.origin, credentials: 'same-origin', retries: 1 });

/** A sentence for a person about a failed call. */
export function errorText(error: unknown): string {
  if (error instanceof ProblemError) {
    const fields = error.errors?.map((e) => `${e.name.replace(/^\//, '')}: ${e.reason}`).join('; ');
    const text = error.detail || error.title || `The service answered ${error.status}.`;
    return fields ? `${text} (${fields})` : text;
  }
  return 'The service could not be reached. Check your connection and try again.';
}

/** The items of every page of a cursor-paged list (for the choices of a form), at most `max`. */
export async function allPages<T>(load: (cursor?: string) => Promise<{ items: T[]; next?: string | null }>, max = 500): Promise<T[]> {
  const items: T[] = [];
  let cursor: string | undefined;
  do {
    const page = await load(cursor);
    items.push(...page.items);
    cursor = page.next ?? undefined;
  } while (cursor && items.length < max);
  return items;
}
