import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config';

describe('config', () => {
  it('applies the documented defaults', () => {
    const c = loadConfig({});
    expect(c).toMatchObject({
      PORT: 8080,
      TEMPORAL_NAMESPACE: 'default',
      TEMPORAL_TASK_QUEUE: 'gateway',
      INVITE_CODES: [],
      ALLOW_PRIVATE_ENDPOINTS: false,
      DISPATCH_RETRY_SCHEDULE: [0, 5, 300, 1800, 7200, 18000, 36000],
      MATCH_TOKEN_TTL_S: 1800,
      CHECKOUT_PLAN_TTL_S: 900,
      publicBaseUrl: 'http://127.0.0.1:8080',
    });
  });

  it('parses lists, flags and keys', () => {
    const c = loadConfig({
      INVITE_CODES: ' a, b ,,c ',
      ALLOW_PRIVATE_ENDPOINTS: 'true',
      DISPATCH_RETRY_SCHEDULE: '0,1,2',
      KEY_ENCRYPTION_KEY: Buffer.alloc(32, 7).toString('base64'),
      PUBLIC_BASE_URL: 'https://gw.example.com/',
    });
    expect(c.INVITE_CODES).toEqual(['a', 'b', 'c']);
    expect(c.ALLOW_PRIVATE_ENDPOINTS).toBe(true);
    expect(c.DISPATCH_RETRY_SCHEDULE).toEqual([0, 1, 2]);
    expect(c.KEY_ENCRYPTION_KEY).toEqual(Buffer.alloc(32, 7));
    expect(c.publicBaseUrl).toBe('https://gw.example.com');
  });

  it('rejects bad values with a message naming each variable', () => {
    let err: unknown;
    try {
      loadConfig({
        PORT: 'eighty',
        KEY_ENCRYPTION_KEY: 'short',
        DISPATCH_RETRY_SCHEDULE: '1,x',
        TEMPORAL_ADDRESS: 'no-port',
        ALLOW_PRIVATE_ENDPOINTS: 'maybe',
      });
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(ConfigError);
    const message = (err as Error).message;
    for (const name of ['PORT', 'KEY_ENCRYPTION_KEY', 'DISPATCH_RETRY_SCHEDULE', 'TEMPORAL_ADDRESS', 'ALLOW_PRIVATE_ENDPOINTS']) {
      expect(message).toContain(name);
    }
    expect(message).toContain('64 hex characters');
  });

  it('treats empty strings as unset', () => {
    const c = loadConfig({ PORT: '', SUPPLY_KEY: '' });
    expect(c.PORT).toBe(8080);
    expect(c.SUPPLY_KEY).toBeUndefined();
  });
});
