import { store } from './store';

/**
 * Routing by the location hash (#/runs, #/runs/<id>, …): the service serves
 * one page at `/`, and the hash never reaches it.
 */
export interface Route {
  section: string;
  id?: string;
}

export const SECTIONS = [
  { path: 'runs', title: 'Runs' },
  { path: 'requests', title: 'Workflow requests' },
  { path: 'usage', title: 'Usage' },
  { path: 'tokens', title: 'Tokens' },
  { path: 'webhooks', title: 'Webhooks' },
] as const;

function parse(hash: string): Route {
  const [section = '', id] = hash.replace(/^#\/?/, '').split('/');
  if (!section) return { section: 'runs' };
  return id ? { section, id: decodeURIComponent(id) } : { section };
}

export const route = store<Route>(parse(location.hash));

addEventListener('hashchange', () => {
  route.value = parse(location.hash);
});

export const href = (section: string, id?: string) => `#/${section}${id ? `/${encodeURIComponent(id)}` : ''}`;

export function navigate(section: string, id?: string): void {
  location.hash = href(section, id);
}
