import type { Schemas } from '@workflow-service/client';
import { useEffect, useState } from 'preact/hooks';
import { useAction } from '../action';
import { allPages, api, errorText } from '../api';
import { Problem } from './Problem';
import { Time } from './Time';

type Interaction = Schemas['Interaction'];
type Response = Schemas['InteractionResponse'];

function Pending({ item, onAnswered }: { item: Interaction; onAnswered: (said: string) => void }) {
  const [text, setText] = useState('');
  const [busy, error, run] = useAction();
  const respond = (body: Response, said: string) =>
    run(async () => {
      await api.POST('/v2/interactions/{id}/respond', { params: { path: { id: item.id } }, body });
      onAnswered(said);
    });
  const title = item.type === 'approval' ? 'Approval needed' : 'Question';
  return (
    <li class="card interaction" aria-label={title}>
      <p class="interaction-kind">
        <strong>{title}</strong>{' '}
        <span class="muted">
          · asked <Time value={item.created_at} />
        </span>
        {item.expires_at && (
          <span class="muted">
            {' '}
            · answer before <Time value={item.expires_at} />
          </span>
        )}
      </p>
      <p class="prompt">{item.prompt ?? '(no prompt)'}</p>
      {item.type === 'approval' ? (
        <div class="actions">
          <button type="button" disabled={busy} onClick={() => respond({ type: 'approval', approved: true }, 'Approved.')}>
            Approve
          </button>
          <button type="button" class="danger" disabled={busy} onClick={() => respond({ type: 'approval', approved: false }, 'Denied.')}>
            Deny
          </button>
        </div>
      ) : (
        <form
          class="stack"
          onSubmit={(e) => {
            e.preventDefault();
            void respond({ type: 'answer', text }, 'Answer sent.');
          }}
        >
          <label>
            Your answer
            <textarea rows={2} required value={text} onInput={(e) => setText(e.currentTarget.value)} />
          </label>
          <div class="actions">
            <button type="submit" disabled={busy}>
              Send answer
            </button>
          </div>
        </form>
      )}
      <Problem error={error} />
    </li>
  );
}

/**
 * The pending interactions (approvals and questions) of a run or a workflow
 * request, answered in place. `refresh` changes when the events say one
 * opened or closed.
 */
export function Interactions({ runId, requestId, refresh }: { runId?: string; requestId?: string; refresh: number }) {
  const [items, setItems] = useState<Interaction[]>([]);
  const [said, setSaid] = useState('');
  const [error, setError] = useState('');
  useEffect(() => {
    let current = true;
    allPages(async (cursor) => {
      const query = { run_id: runId, workflow_request_id: requestId, status: 'pending' as const, limit: 50, cursor };
      const { data } = await api.GET('/v2/interactions', { params: { query } });
      return { items: data.data, next: data.page.next_cursor };
    }).then(
      (list) => {
        if (!current) return;
        setItems(list);
        setError('');
      },
      (failure) => current && setError(errorText(failure)),
    );
    return () => {
      current = false;
    };
  }, [runId, requestId, refresh]);
  return (
    <div>
      {items.length > 0 && (
        <>
          <h3>Waiting for you</h3>
          <ul class="plain">
            {items.map((item) => (
              <Pending
                key={item.id}
                item={item}
                onAnswered={(text) => {
                  setSaid(text);
                  setItems((list) => list.filter((i) => i.id !== item.id));
                }}
              />
            ))}
          </ul>
        </>
      )}
      <Problem error={error} />
      <p class="visually-hidden" role="status">
        {said}
      </p>
    </div>
  );
}
