import type { Schemas } from '@workflow-service/client';
import { useState } from 'preact/hooks';
import { useAction } from '../action';
import { api } from '../api';
import { Confirm } from '../components/Confirm';
import { Pager } from '../components/Pager';
import { Problem } from '../components/Problem';
import { ShownOnce } from '../components/ShownOnce';
import { Status } from '../components/Status';
import { Table } from '../components/Table';
import { Time } from '../components/Time';
import { usePaged } from '../paged';
import { href } from '../router';

type Endpoint = Schemas['WebhookEndpoint'];
type EventType = Endpoint['events'][number];

const EVENT_TYPES: EventType[] = [
  'run.completed',
  'run.failed',
  'run.cancelled',
  'interaction.created',
  'workflow_request.completed',
  'workflow_request.failed',
  'workflow_request.stopped',
  'evaluation.completed',
];

function CreateForm({ onCreated }: { onCreated: () => void }) {
  const [url, setUrl] = useState('');
  const [description, setDescription] = useState('');
  const [events, setEvents] = useState<EventType[]>(['run.completed', 'run.failed']);
  const [secret, setSecret] = useState<string>();
  const [busy, error, run] = useAction();
  const toggle = (type: EventType, on: boolean) => setEvents((list) => (on ? [...list, type] : list.filter((t) => t !== type)));
  const submit = (event: SubmitEvent) => {
    event.preventDefault();
    void run(async () => {
      const body = { url: url.trim(), events, ...(description.trim() ? { description: description.trim() } : {}) };
      setSecret((await api.POST('/v1/webhook-endpoints', { body })).data.secret);
      setUrl('');
      setDescription('');
      onCreated();
    });
  };
  if (secret) return <ShownOnce label="Signing secret of the new endpoint" value={secret} onDone={() => setSecret(undefined)} />;
  return (
    <form class="card stack" onSubmit={submit} aria-labelledby="new-endpoint-title">
      <h3 id="new-endpoint-title">Add an endpoint</h3>
      <div class="row">
        <label class="grow">
          Endpoint URL
          <input type="url" required placeholder="https://example.com/webhooks" value={url} onInput={(e) => setUrl(e.currentTarget.value)} />
        </label>
        <label class="grow">
          Description
          <input value={description} maxLength={200} onInput={(e) => setDescription(e.currentTarget.value)} />
        </label>
      </div>
      <fieldset class="checks">
        <legend>Events</legend>
        {EVENT_TYPES.map((type) => (
          <label class="check">
            <input type="checkbox" checked={events.includes(type)} onChange={(e) => toggle(type, e.currentTarget.checked)} />
            <code>{type}</code>
          </label>
        ))}
      </fieldset>
      <Problem error={error} />
      <div class="actions">
        <button type="submit" disabled={busy || events.length === 0}>
          Add endpoint
        </button>
      </div>
    </form>
  );
}

/** Webhooks: the endpoints deliveries go to; add, delete, and each one's page with its deliveries. */
export function WebhooksPage() {
  const endpoints = usePaged<Endpoint>(async (cursor) => {
    const { data } = await api.GET('/v1/webhook-endpoints', { params: { query: { limit: 20, cursor } } });
    return { items: data.endpoints, next: data.next_cursor };
  });
  const [deleting, setDeleting] = useState<Endpoint>();
  return (
    <section>
      <h2>Webhooks</h2>
      <p class="muted">The service POSTs the events you choose to your endpoints, signed per Standard Webhooks, and retries failed deliveries.</p>
      <CreateForm onCreated={endpoints.reload} />
      <Table
        caption="Endpoints"
        showCaption
        rows={endpoints.items}
        columns={[
          {
            label: 'URL',
            cell: (e) => (
              <>
                <a class="mono" href={href('webhooks', e.id)}>
                  {e.url}
                </a>
                {e.description && <div class="muted">{e.description}</div>}
              </>
            ),
          },
          { label: 'Events', cell: (e) => e.events.join(', ') },
          { label: 'State', cell: (e) => <Status value={e.disabled ? 'disabled' : 'enabled'} /> },
          { label: 'Created', cell: (e) => <Time value={e.created_at} /> },
          {
            label: '',
            cell: (e) => (
              <button type="button" class="danger small" onClick={() => setDeleting(e)}>
                Delete
              </button>
            ),
          },
        ]}
      />
      <Pager list={endpoints} empty="No endpoints yet." />
      {deleting && (
        <DeleteEndpoint
          endpoint={deleting}
          onClose={() => setDeleting(undefined)}
          onDeleted={() => endpoints.update((list) => list.filter((e) => e.id !== deleting.id))}
        />
      )}
    </section>
  );
}

export function DeleteEndpoint({ endpoint, onClose, onDeleted }: { endpoint: Endpoint; onClose: () => void; onDeleted: () => void }) {
  return (
    <Confirm
      title="Delete this endpoint?"
      action="Delete endpoint"
      onClose={onClose}
      onConfirm={async () => {
        await api.DELETE('/v1/webhook-endpoints/{id}', { params: { path: { id: endpoint.id } } });
        onDeleted();
      }}
    >
      Deliveries to <strong class="mono">{endpoint.url}</strong> stop, and its pending ones end failed.
    </Confirm>
  );
}
