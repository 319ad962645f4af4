import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Webhook } from 'standardwebhooks';
import { describe, expect, it } from 'vitest';
import { deriveWebhookSecret, serviceKeyFromEnv } from '#platform/secrets/service-key.js';

describe('service key', () => {
  it('creates the local key file once and reads the same key after', async () => {
    // Prepare
    const file = join(mkdtempSync(join(tmpdir(), 'svc-key-')), 'nested', 'service-key');
    // Act
    const first = await serviceKeyFromEnv({ SERVICE_KEY_FILE: file }).load();
    const second = await serviceKeyFromEnv({ SERVICE_KEY_FILE: file }).load();
    // Assert
    expect(first.equals(second)).toBe(true);
    expect(readFileSync(file, 'utf8').trim().length).toBeGreaterThanOrEqual(32);
  });

  it('refuses to work without a configured key', async () => {
    await expect(serviceKeyFromEnv({}).load()).rejects.toThrow(/SERVICE_KEY_SECRET_ARN/);
  });

  it('derives Standard Webhooks secrets that differ by purpose, resource and version', () => {
    // Prepare
    const key = Buffer.from('k'.repeat(40));
    // Act
    const secrets = [
      deriveWebhookSecret(key, 'hook', 'h1', 1),
      deriveWebhookSecret(key, 'hook', 'h1', 2),
      deriveWebhookSecret(key, 'hook', 'h2', 1),
      deriveWebhookSecret(key, 'endpoint', 'h1', 1),
    ];
    // Assert
    expect(new Set(secrets).size).toBe(4);
    expect(deriveWebhookSecret(key, 'hook', 'h1', 1)).toBe(secrets[0]);
    const signed = new Webhook(secrets[0]!).sign('msg_1', new Date(), '{"a":1}');
    expect(
      new Webhook(secrets[0]!).verify('{"a":1}', {
        'webhook-id': 'msg_1',
        'webhook-timestamp': String(Math.floor(Date.now() / 1000)),
        'webhook-signature': signed,
      }),
    ).toEqual({ a: 1 });
  });
});
