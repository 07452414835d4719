import type { Client } from '@temporalio/client';
import proto from '@temporalio/proto';

/**
 * What a flow costs Temporal, read from the histories of a sample of its runs: history events,
 * workflow tasks, activity tasks, local activities, timers, search-attribute upserts, Updates and
 * signals, as means per run. Each workflow task is a poll, a history load and a completion on the
 * server; each activity task another poll and completion; each event a row written (docs/BENCHMARKS.md).
 */

const E = proto.temporal.api.enums.v1.EventType;

export interface FlowCost {
  flow: string;
  workflowType: string;
  runs: number;
  /** How many of the sampled runs were closed (the rest were still running: counts so far). */
  closed: number;
  events: number;
  workflowTasks: number;
  activityTasks: number;
  localActivities: number;
  /** `patched(...)` markers. */
  patches: number;
  timers: number;
  upserts: number;
  updates: number;
  signals: number;
  children: number;
}

const COUNTED: Array<[keyof FlowCost, number[]]> = [
  ['workflowTasks', [E.EVENT_TYPE_WORKFLOW_TASK_SCHEDULED]],
  ['activityTasks', [E.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED]],
  ['timers', [E.EVENT_TYPE_TIMER_STARTED]],
  ['upserts', [E.EVENT_TYPE_UPSERT_WORKFLOW_SEARCH_ATTRIBUTES, E.EVENT_TYPE_WORKFLOW_PROPERTIES_MODIFIED]],
  ['updates', [E.EVENT_TYPE_WORKFLOW_EXECUTION_UPDATE_ACCEPTED]],
  ['signals', [E.EVENT_TYPE_WORKFLOW_EXECUTION_SIGNALED]],
  ['children', [E.EVENT_TYPE_START_CHILD_WORKFLOW_EXECUTION_INITIATED]],
];

/**
 * Samples up to `sample` runs of each workflow type started since `since` (closed runs first, then
 * running ones) and returns the mean counts per run. `flows`: label → workflow type name.
 */
export async function temporalCost(
  client: Client,
  flows: Record<string, string>,
  opts: { since: Date; sample?: number },
): Promise<FlowCost[]> {
  const sample = opts.sample ?? 20;
  const out: FlowCost[] = [];
  for (const [flow, workflowType] of Object.entries(flows)) {
    const base = `WorkflowType = '${workflowType}' AND StartTime >= '${opts.since.toISOString()}'`;
    const picked: Array<{ workflowId: string; runId: string; closed: boolean }> = [];
    for (const [status, closed] of [
      ["ExecutionStatus != 'Running'", true],
      ["ExecutionStatus = 'Running'", false],
    ] as const) {
      if (picked.length >= sample) break;
      for await (const w of client.workflow.list({ query: `${base} AND ${status}`, pageSize: sample })) {
        picked.push({ workflowId: w.workflowId, runId: w.runId, closed });
        if (picked.length >= sample) break;
      }
    }
    const row: FlowCost = {
      flow,
      workflowType,
      runs: picked.length,
      closed: picked.filter((p) => p.closed).length,
      events: 0,
      workflowTasks: 0,
      activityTasks: 0,
      localActivities: 0,
      patches: 0,
      timers: 0,
      upserts: 0,
      updates: 0,
      signals: 0,
      children: 0,
    };
    for (const p of picked) {
      const history = await client.workflow.getHandle(p.workflowId, p.runId).fetchHistory();
      const events = history.events ?? [];
      row.events += events.length;
      for (const ev of events) {
        for (const [field, types] of COUNTED) if (types.includes(ev.eventType as number)) (row[field] as number)++;
        // Markers are local activities (core_local_activity) or patches (core_patch).
        const marker = ev.markerRecordedEventAttributes?.markerName;
        if (marker === 'core_local_activity') row.localActivities++;
        else if (marker === 'core_patch') row.patches++;
      }
    }
    for (const field of ['events', 'localActivities', 'patches', ...COUNTED.map(([f]) => f)] as const)
      if (row.runs) (row[field] as number) /= row.runs;
    out.push(row);
  }
  return out;
}

const COLUMNS: Array<[string, (r: FlowCost) => number]> = [
  ['history events', (r) => r.events],
  ['workflow tasks', (r) => r.workflowTasks],
  ['activity tasks', (r) => r.activityTasks],
  ['local activities', (r) => r.localActivities],
  ['patch markers', (r) => r.patches],
  ['timers', (r) => r.timers],
  ['SA / memo upserts', (r) => r.upserts],
  ['Updates', (r) => r.updates],
  ['signals', (r) => r.signals],
  ['children', (r) => r.children],
];

/** The counts as a markdown table. */
export function costTable(rows: FlowCost[]): string[] {
  const f = (n: number) => (Number.isInteger(n) ? String(n) : n.toFixed(1));
  const line = (cells: string[]) => `| ${cells.join(' | ')} |`;
  return [
    line(['flow (workflow type)', 'runs sampled (closed)', ...COLUMNS.map(([name]) => name)]),
    line(Array.from({ length: COLUMNS.length + 2 }, () => '---')),
    ...rows.map((r) => line([`${r.flow} (\`${r.workflowType}\`)`, `${r.runs} (${r.closed})`, ...COLUMNS.map(([, get]) => f(get(r)))])),
  ];
}
