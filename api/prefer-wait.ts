/**
 * `Prefer: wait=N` (RFC 7240) for the routes that start a flow and wait for it: N seconds clamped to
 * 0..maxS, in milliseconds; no header, or one without a readable wait, means the flow's default.
 */
export function preferredWaitMs(prefer: string | undefined, wait: { defaultS: number; maxS: number }): number {
  const m = /(?:^|[,;\s])wait\s*=\s*(\d+(?:\.\d+)?)/i.exec(prefer ?? '');
  const s = m ? Number(m[1]) : wait.defaultS;
  return Math.round(Math.min(Math.max(s, 0), wait.maxS) * 1000);
}
