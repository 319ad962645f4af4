import { useEffect, useRef } from 'preact/hooks';
import { Nav } from './components/Nav';
import { RequestPage } from './pages/Request';
import { RequestsPage } from './pages/Requests';
import { RunPage } from './pages/Run';
import { RunsPage } from './pages/Runs';
import { SignInPage } from './pages/SignIn';
import { TokensPage } from './pages/Tokens';
import { UsagePage } from './pages/Usage';
import { WebhookPage } from './pages/Webhook';
import { WebhooksPage } from './pages/Webhooks';
import { type Route, route, SECTIONS } from './router';
import { phase } from './session';
import { useStore } from './store';

const APP_NAME = 'Workflow service console';

function Page({ current }: { current: Route }) {
  const { section, id } = current;
  if (section === 'runs') return id ? <RunPage id={id} /> : <RunsPage />;
  if (section === 'requests') return id ? <RequestPage id={id} /> : <RequestsPage />;
  if (section === 'usage') return <UsagePage />;
  if (section === 'tokens') return <TokensPage />;
  if (section === 'webhooks') return id ? <WebhookPage id={id} /> : <WebhooksPage />;
  return (
    <section>
      <h2>Not found</h2>
      <p>
        There is no page at this address. <a href="#/runs">Go to Runs</a>.
      </p>
    </section>
  );
}

/** The signed-in console: header, sections, and the page of the route (focused on each move, for screen readers). */
function Console() {
  const current = useStore(route);
  const main = useRef<HTMLElement>(null);
  const key = `${current.section}/${current.id ?? ''}`;
  const first = useRef(true);
  useEffect(() => {
    const title = SECTIONS.find((s) => s.path === current.section)?.title;
    document.title = `${current.id ?? title ?? 'Not found'} · ${APP_NAME}`;
    if (first.current) {
      first.current = false;
      return;
    }
    const heading = main.current?.querySelector<HTMLElement>('h2');
    if (heading) {
      heading.tabIndex = -1;
      heading.focus();
    }
  }, [key]);
  return (
    <>
      <button type="button" class="skip" onClick={() => main.current?.focus()}>
        Skip to content
      </button>
      <Nav current={current.section} />
      <main id="main" ref={main} tabIndex={-1}>
        <Page key={key} current={current} />
      </main>
    </>
  );
}

export function App() {
  const state = useStore(phase);
  if (state === 'starting') {
    return (
      <main class="center" aria-busy="true">
        <p role="status">Opening the console…</p>
      </main>
    );
  }
  return state === 'signed-in' ? <Console /> : <SignInPage />;
}
