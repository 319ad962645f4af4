import type { Schemas } from '@workflow-service/client';
import { useEffect, useState } from 'preact/hooks';
import { useAction } from '../action';
import { api } from '../api';
import { Facts } from '../components/Facts';
import { Pager } from '../components/Pager';
import { Problem } from '../components/Problem';
import { Status } from '../components/Status';
import { Table } from '../components/Table';
import { Time } from '../components/Time';
import { usePaged } from '../paged';
import { href, navigate } from '../router';
import { DeleteEndpoint } from './Webhooks';

type Endpoint = Schemas['WebhookEndpoint'];
type Delivery = Schemas['WebhookDelivery'];

/** One endpoint: its settings, enable or disable, delete, and its deliveries with "Retry" on the failed ones. */
export function WebhookPage({ id }: { id: string }) {
  const [endpoint, setEndpoint] = useState<Endpoint>();
  const [deleting, setDeleting] = useState(false);
  const [busy, error, run] = useAction();
  const deliveries = usePaged<Delivery>(async (cursor) => {
    const { data } = await api.GET('/v1/webhook-endpoints/{id}/deliveries', { params: { path: { id }, query: { limit: 20, cursor } } });
    return { items: data.deliveries, next: data.next_cursor };
  });
  useEffect(() => {
    void run(async () => setEndpoint((await api.GET('/v1/webhook-endpoints/{id}', { params: { path: { id } } })).data));
  }, [id]);

  const setDisabled = (disabled: boolean) =>
    run(async () => setEndpoint((await api.PATCH('/v1/webhook-endpoints/{id}', { params: { path: { id } }, body: { disabled } })).data));

  const retry = (delivery: Delivery) =>
    run(async () => {
      const path = { id, delivery_id: delivery.id };
      const { data } = await api.POST('/v1/webhook-endpoints/{id}/deliveries/{delivery_id}/retry', { params: { path } });
      deliveries.update((list) => list.map((d) => (d.id === data.id ? data : d)));
    });

  return (
    <section>
      <p class="crumb">
        <a href={href('webhooks')}>← Webhooks</a>
      </p>
      <h2>
        Webhook endpoint <span class="mono">{endpoint?.url ?? id}</span>
      </h2>
      <Problem error={error} />
      {endpoint && (
        <>
          <Facts
            items={[
              ['State', <Status value={endpoint.disabled ? 'disabled' : 'enabled'} />],
              ['Events', endpoint.events.join(', ')],
              ['Description', endpoint.description ?? '—'],
              ['Created', <Time value={endpoint.created_at} />],
            ]}
          />
          {endpoint.disabled_reason === 'gone' && <p class="note">Disabled because a delivery was answered 410 Gone.</p>}
          <div class="actions">
            <button type="button" class="secondary" disabled={busy} onClick={() => setDisabled(!endpoint.disabled)}>
              {endpoint.disabled ? 'Enable endpoint' : 'Disable endpoint'}
            </button>
            <button type="button" class="danger" onClick={() => setDeleting(true)}>
              Delete endpoint
            </button>
          </div>
        </>
      )}
      <div class="heading-row sub">
        <h3>Deliveries</h3>
        <button type="button" class="secondary small" onClick={deliveries.reload}>
          Refresh
        </button>
      </div>
      <Table
        caption="Deliveries, newest first"
        rows={deliveries.items}
        columns={[
          {
            label: 'Event',
            cell: (d) => (
              <>
                <code>{d.event_type}</code>
                <div class="muted mono">{d.event_id}</div>
              </>
            ),
          },
          {
            label: 'Status',
            cell: (d) => (
              <>
                <Status value={d.status} />
                {d.next_attempt_at && (
                  <div class="muted">
                    next <Time value={d.next_attempt_at} />
                  </div>
                )}
              </>
            ),
          },
          { label: 'Attempts', num: true, cell: (d) => d.attempts },
          {
            label: 'Last answer',
            cell: (d) => (
              <>
                {d.last_status_code} <span class="problem-text">{d.last_error}</span>
              </>
            ),
          },
          { label: 'Created', cell: (d) => <Time value={d.created_at} /> },
          {
            label: '',
            cell: (d) =>
              d.status === 'failed' && (
                <button type="button" class="small" disabled={busy} onClick={() => retry(d)}>
                  Retry
                </button>
              ),
          },
        ]}
      />
      <Pager list={deliveries} empty="No deliveries yet." />
      {deleting && endpoint && <DeleteEndpoint endpoint={endpoint} onClose={() => setDeleting(false)} onDeleted={() => navigate('webhooks')} />}
    </section>
  );
}
