import type { Paged } from '../paged';
import { Problem } from './Problem';

/** Under a list: its error, "Loading…", "Load more" while the API has more, or what an empty list means. */
export function Pager({ list, empty }: { list: Paged<unknown>; empty: string }) {
  return (
    <div class="pager">
      <Problem error={list.error} />
      {list.loading ? (
        <p class="muted" role="status">
          Loading…
        </p>
      ) : list.hasMore ? (
        <button type="button" class="secondary" onClick={list.more}>
          Load more
        </button>
      ) : list.items.length === 0 && !list.error ? (
        <p class="muted">{empty}</p>
      ) : null}
    </div>
  );
}
