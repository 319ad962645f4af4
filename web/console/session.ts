import { ProblemError } from '@workflow-service/client';
import { api, auth, errorText, sessionApi } from './api';
import { store } from './store';

/**
 * The browser session and the console's own API token.
 *
 * Signing in (POST /v1/auth/login) sets the HttpOnly session cookie; the
 * console then mints itself a 60-minute token through it (POST
 * /v1/api-tokens) and keeps it here, in a module variable: never in
 * localStorage, sessionStorage or a readable cookie. A reload mints again
 * through the cookie, so it signs in again only while the session lasts.
 */

export type Phase = 'starting' | 'signed-out' | 'signed-in';

export const phase = store<Phase>('starting');
/** What the sign-in page says: why the person is there. */
export const notice = store('');
/** The id of the console's own token (marked in Tokens). */
export const consoleTokenId = store<string | undefined>(undefined);

export const WRONG_CREDENTIALS = 'Wrong email or password.';
export const SESSION_ENDED = 'Your session has ended. Sign in again.';

interface Held {
  id: string;
  token: string;
  expiresAt: number;
}

let held: Held | undefined;
let minting: Promise<Held> | undefined;

const stamp = () => new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'short' }).format(new Date());

async function mint(): Promise<Held> {
  const { data } = await sessionApi.POST('/v1/api-tokens', { body: { name: `Console (${stamp()})`, duration_minutes: 60 } });
  held = { id: data.id, token: data.token, expiresAt: Date.parse(data.expires_at) };
  consoleTokenId.value = data.id;
  return held;
}

function end(message: string): void {
  held = undefined;
  consoleTokenId.value = undefined;
  if (phase.value === 'signed-out') return;
  phase.value = 'signed-out';
  notice.value = message;
}

/** The bearer token of every call: minted again through the session a minute before it expires. */
auth.token = async () => {
  if (held && held.expiresAt - Date.now() > 60_000) return held.token;
  minting ??= mint().finally(() => {
    minting = undefined;
  });
  try {
    return (await minting).token;
  } catch (error) {
    if (error instanceof ProblemError && error.status === 401) end(SESSION_ENDED);
    throw error;
  }
};
auth.unauthorized = () => end(SESSION_ENDED);

/** Mints the console's token; answers the sentence to show when it cannot. */
async function start(): Promise<string | undefined> {
  try {
    await mint();
    notice.value = '';
    phase.value = 'signed-in';
    return undefined;
  } catch (error) {
    phase.value = 'signed-out';
    return error instanceof ProblemError && error.status === 401 ? SESSION_ENDED : errorText(error);
  }
}

/** On load: signed in again if the session cookie still holds. */
export async function resume(): Promise<void> {
  const problem = await start();
  if (problem && problem !== SESSION_ENDED) notice.value = problem;
}

export async function signIn(email: string, password: string): Promise<void> {
  try {
    await sessionApi.POST('/v1/auth/login', { body: { email, password } });
  } catch (error) {
    notice.value = error instanceof ProblemError && error.status === 401 ? WRONG_CREDENTIALS : errorText(error);
    return;
  }
  const problem = await start();
  if (problem) notice.value = problem;
}

/** Revokes the console's token, then ends the session. */
export async function signOut(): Promise<void> {
  const id = held?.id;
  if (id) await api.POST('/v1/api-tokens/revoke', { body: { token_id: id } }).catch(() => {});
  await sessionApi.POST('/v1/auth/logout').catch(() => {});
  end('You have signed out.');
}

/** A token was revoked in Tokens: if it was the console's, the next call mints a new one. */
export function forgetToken(id: string): void {
  if (held?.id === id) held = undefined;
}

/** Mints a token for the person (Tokens), through the session like the console's own. */
export async function mintToken(name: string, durationMinutes: number) {
  try {
    const { data } = await sessionApi.POST('/v1/api-tokens', { body: { name, duration_minutes: durationMinutes } });
    return data;
  } catch (error) {
    if (error instanceof ProblemError && error.status === 401) end(SESSION_ENDED);
    throw error;
  }
}
