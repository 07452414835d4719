import { expect } from 'vitest';
import { call, uniqueEmail } from './http';
import { TEST_INVITE } from './stack';

export interface Onboarded {
  developerId: string;
  developerToken: string;
  apiKey: string;
  keyId: string;
  email: string;
}

/** Onboarding (docs/CONTRACT.md#credentials) in its shortest form: register with a valid invite, create a key. */
export async function onboard(base: string, keyBody: Record<string, unknown> = {}): Promise<Onboarded> {
  const email = uniqueEmail();
  const reg = await call(base, 'POST', '/v1/developers/register', {
    body: { display_name: 'Test Dev', contact_email: email, password: 'correct horse battery', invite_code: TEST_INVITE },
  });
  expect(reg.status).toBe(201);
  const key = await call(base, 'POST', '/v1/developers/keys', { token: reg.body.developer_token, body: keyBody });
  expect(key.status).toBe(201);
  return {
    developerId: reg.body.developer.developer_id,
    developerToken: reg.body.developer_token,
    apiKey: key.body.api_key,
    keyId: key.body.key.key_id,
    email,
  };
}
