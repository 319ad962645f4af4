import assert from 'node:assert/strict';
import { describe, test } from 'vitest';
import { describeOutboundSettings, OUTBOUND_VARIABLES, outboundSettings, outboundVariable } from '#net/outbound-settings.js';

describe('outbound settings (decisions.md, Outbound calls)', () => {
  test('defaults: https: only, nothing non-public allowed', () => {
    const settings = outboundSettings({});
    assert.equal(settings.allowInsecure, false);
    assert.deepEqual([...settings.allowedHostnames], []);
    assert.deepEqual(settings.allowedCidrs, []);
  });

  test('OUTBOUND_ALLOWED_HOSTS and OUTBOUND_ALLOW_INSECURE', () => {
    const settings = outboundSettings({ OUTBOUND_ALLOWED_HOSTS: ' Api.Internal. , 10.0.0.0/8,127.0.0.1', OUTBOUND_ALLOW_INSECURE: 'true' });
    assert.equal(settings.allowInsecure, true);
    assert.deepEqual([...settings.allowedHostnames], ['api.internal']);
    assert.equal(settings.allowedCidrs.length, 2);
    for (const value of ['TRUE', '1', 'yes', 'false']) assert.equal(outboundSettings({ OUTBOUND_ALLOW_INSECURE: value }).allowInsecure, false, value);
  });

  test("the http node's earlier names are aliases", () => {
    assert.deepEqual(OUTBOUND_VARIABLES, {
      OUTBOUND_ALLOWED_HOSTS: ['HTTP_NODE_ALLOWED_HOSTS'],
      OUTBOUND_ALLOW_INSECURE: ['HTTP_NODE_ALLOW_INSECURE'],
    });
    const settings = outboundSettings({ HTTP_NODE_ALLOWED_HOSTS: 'localhost,10.0.0.0/8', HTTP_NODE_ALLOW_INSECURE: 'true' });
    assert.equal(settings.allowInsecure, true);
    assert.deepEqual([...settings.allowedHostnames], ['localhost']);
    assert.equal(settings.allowedCidrs.length, 1);
  });

  test('the new name wins over its alias when set and not empty', () => {
    const both = outboundSettings({
      OUTBOUND_ALLOWED_HOSTS: 'new.internal',
      HTTP_NODE_ALLOWED_HOSTS: 'old.internal',
      OUTBOUND_ALLOW_INSECURE: 'false',
      HTTP_NODE_ALLOW_INSECURE: 'true',
    });
    assert.deepEqual([...both.allowedHostnames], ['new.internal']);
    assert.equal(both.allowInsecure, false);
    const empty = outboundSettings({
      OUTBOUND_ALLOWED_HOSTS: '',
      HTTP_NODE_ALLOWED_HOSTS: 'old.internal',
      OUTBOUND_ALLOW_INSECURE: '',
      HTTP_NODE_ALLOW_INSECURE: 'true',
    });
    assert.deepEqual([...empty.allowedHostnames], ['old.internal']);
    assert.equal(empty.allowInsecure, true);
    assert.deepEqual(outboundVariable('OUTBOUND_ALLOWED_HOSTS', { HTTP_NODE_ALLOWED_HOSTS: 'x' }), { name: 'HTTP_NODE_ALLOWED_HOSTS', value: 'x' });
    assert.equal(outboundVariable('OUTBOUND_ALLOWED_HOSTS', {}), undefined);
  });

  test('read from process.env on every call', () => {
    const saved = process.env.OUTBOUND_ALLOW_INSECURE;
    try {
      process.env.OUTBOUND_ALLOW_INSECURE = 'true';
      assert.equal(outboundSettings().allowInsecure, true);
      process.env.OUTBOUND_ALLOW_INSECURE = 'false';
      assert.equal(outboundSettings().allowInsecure, false);
    } finally {
      if (saved === undefined) delete process.env.OUTBOUND_ALLOW_INSECURE;
      else process.env.OUTBOUND_ALLOW_INSECURE = saved;
    }
  });

  test("npm start's summary names the variables that loosened the guard", () => {
    assert.equal(describeOutboundSettings({}), 'https: only; non-public addresses refused');
    assert.equal(
      describeOutboundSettings({ OUTBOUND_ALLOW_INSECURE: 'true', HTTP_NODE_ALLOWED_HOSTS: ' 127.0.0.1 , localhost,' }),
      'https: and http: (OUTBOUND_ALLOW_INSECURE); non-public addresses refused except 127.0.0.1, localhost (HTTP_NODE_ALLOWED_HOSTS)',
    );
  });
});
