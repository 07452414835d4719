import * as wf from '@temporalio/workflow';
import type { SearchAttributeUpdatePair } from '@temporalio/common';
import { searchAttributes as SA } from '../src/temporal/names';

/**
 * A flow's live stage, one helper for every workflow: `set` writes it to its search attribute
 * (`FlowStage` unless told, e.g. `DeliveryState`), which operators filter on in the Temporal UI, and,
 * with `details`, the run's Current Details. `current` is what the flow's stage query answers.
 * Each flow's stages are a union type in its `.shared.ts`.
 */
export function flowStage<S extends string>(initial: S, key: typeof SA.FlowStage = SA.FlowStage) {
  let current = initial;
  return {
    get current(): S {
      return current;
    },
    /**
     * The stage, written to the search attribute (one upsert command in the history, which also
     * carries `also`: other attributes written at the same moment cost no event of their own).
     */
    set(s: S, details?: string, also: SearchAttributeUpdatePair[] = []): void {
      current = s;
      wf.upsertSearchAttributes([{ key, value: s }, ...also]);
      if (details !== undefined) wf.setCurrentDetails(details);
    },
    /**
     * The stage in the run's Current Details only, without a history event: for a stage nobody
     * filters on, because the run passes it within its workflow task.
     */
    show(s: S, details: string): void {
      current = s;
      wf.setCurrentDetails(details);
    },
    /** The stage as the flow itself sees it, without a command (e.g. an Update claiming the next step). */
    claim(s: S): void {
      current = s;
    },
  };
}
