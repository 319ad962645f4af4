import { firstDelivery, type WebhookDelivery, type WebhookEndpoint } from '#webhooks/model.js';

/** An enabled endpoint of account `acc` taking `run.completed`, with what a test changes. */
export const endpointFixture = (overrides: Partial<WebhookEndpoint> = {}): WebhookEndpoint => ({
  id: 'whe_0mwvyhd7oIwogRIxo-Bl0thkA',
  account_id: 'acc',
  url: 'https://hooks.example/x',
  events: ['run.completed'],
  description: null,
  disabled: false,
  disabled_reason: null,
  secret_version: 1,
  previous_secret_version: null,
  previous_valid_until: null,
  secret_rotated_at: null,
  created_at: '2026-03-01T00:00:00.000Z',
  updated_at: '2026-03-01T00:00:00.000Z',
  ...overrides,
});

/** A `run.completed` account event as the record holds it. */
export const EVENT_FIXTURE = {
  id: '6f1c1e1e-0000-5000-8000-000000000001',
  type: 'run.completed',
  created_at: '2026-03-01T00:00:05.000Z',
  data: { id: 'run_1' },
};

/** The pending first delivery of EVENT_FIXTURE to the endpoint `endpointId`, with what a test changes. */
export const deliveryFixture = (endpointId: string, overrides: Partial<WebhookDelivery> = {}): WebhookDelivery => ({
  ...firstDelivery(endpointId, 'acc', { ...EVENT_FIXTURE, type: 'run.completed' }, new Date('2026-03-01T00:00:06.000Z'), null),
  ...overrides,
});
