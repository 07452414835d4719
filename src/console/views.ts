import type { ApiKey, Developer, DeveloperSession } from '../db/schema';
import type { ApiKeyView, DeveloperView, SessionView } from '../schemas/console';
import { iso } from '../time';

export function developerView(d: Developer): DeveloperView {
  return {
    developer_id: d.developer_id,
    display_name: d.display_name,
    contact_email: d.contact_email,
    company: d.company,
    website: d.website,
    status: d.status,
    invite_verified_at: iso(d.invite_verified_at),
    metadata: d.metadata,
    created_at: iso(d.created_at),
    updated_at: iso(d.updated_at),
  };
}

export function sessionView(s: DeveloperSession): SessionView {
  return {
    session_id: s.session_id,
    developer_id: s.developer_id,
    status: s.status,
    expires_at: iso(s.expires_at),
    created_at: iso(s.created_at),
    last_used_at: iso(s.last_used_at),
  };
}

export function apiKeyView(k: ApiKey): ApiKeyView {
  return {
    key_id: k.key_id,
    developer_id: k.developer_id,
    key_prefix: k.key_prefix,
    label: k.label,
    scopes: k.scopes,
    status: k.status as ApiKeyView['status'],
    last_used_at: iso(k.last_used_at),
    created_at: iso(k.created_at),
    revoked_at: iso(k.revoked_at),
    can_reveal: k.key_ciphertext !== null,
  };
}
