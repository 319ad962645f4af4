import { isAbsolute, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

export const REPO_ROOT = resolve(fileURLToPath(new URL('../..', import.meta.url)));

const cache = new Map<string, Promise<unknown>>();

/**
 * Loads a handler module once, as Lambda does per execution environment, so
 * module-scope clients are reused across invocations.
 */
export function loadHandler(entry: string): Promise<unknown> {
  let loaded = cache.get(entry);
  if (!loaded) {
    const file = isAbsolute(entry) ? entry : resolve(REPO_ROOT, entry);
    loaded = import(pathToFileURL(file).href).then((module: { handler?: unknown }) => {
      if (typeof module.handler !== 'function') throw new Error(`${entry} does not export a handler function`);
      return module.handler;
    });
    cache.set(entry, loaded);
    loaded.catch(() => cache.delete(entry));
  }
  return loaded;
}
