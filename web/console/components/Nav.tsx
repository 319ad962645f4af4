import { useState } from 'preact/hooks';
import { href, SECTIONS } from '../router';
import { signOut } from '../session';

/** The header: the console's name, its sections, and "Sign out". */
export function Nav({ current }: { current: string }) {
  const [leaving, setLeaving] = useState(false);
  return (
    <header class="top">
      <div class="top-inner">
        <h1>
          <a href="#/runs">Workflow service</a>
        </h1>
        <nav aria-label="Sections">
          <ul>
            {SECTIONS.map(({ path, title }) => (
              <li key={path}>
                <a href={href(path)} aria-current={current === path ? 'page' : undefined}>
                  {title}
                </a>
              </li>
            ))}
          </ul>
        </nav>
        <button
          type="button"
          class="secondary small"
          disabled={leaving}
          onClick={() => {
            setLeaving(true);
            void signOut();
          }}
        >
          Sign out
        </button>
      </div>
    </header>
  );
}
