import type { Connection } from '@temporalio/client';
import proto from '@temporalio/proto';
import { SEARCH_ATTRIBUTE_NAMES } from './names';

// Default import: Node's ESM loader cannot see this CommonJS package's named exports.
const KEYWORD = proto.temporal.api.enums.v1.IndexedValueType.INDEXED_VALUE_TYPE_KEYWORD;

export async function listCustomSearchAttributes(
  connection: Pick<Connection, 'operatorService'>,
  namespace: string,
): Promise<Record<string, number>> {
  const res = await connection.operatorService.listSearchAttributes({ namespace });
  return Object.fromEntries(Object.entries(res.customAttributes ?? {}).map(([k, v]) => [k, Number(v)]));
}

/**
 * Registers the gateway's search attributes when missing. The dev server gets them as start flags;
 * a real cluster (docker compose) gets them here, at worker start. Safe to call repeatedly.
 */
export async function ensureSearchAttributes(connection: Pick<Connection, 'operatorService'>, namespace: string): Promise<string[]> {
  const existing = await listCustomSearchAttributes(connection, namespace);
  const missing = SEARCH_ATTRIBUTE_NAMES.filter((n) => !(n in existing));
  if (missing.length) {
    await connection.operatorService.addSearchAttributes({
      namespace,
      searchAttributes: Object.fromEntries(missing.map((n) => [n, KEYWORD])),
    });
  }
  return missing;
}
