import { sql, type Kysely } from 'kysely';

/** Commerce runtime (docs/RUNTIME.md): one row per run and one per AgentStep of its loop. */
export async function up(db: Kysely<any>): Promise<void> {
  const now = (c: any) => c.notNull().defaultTo(sql`now()`);
  await db.schema
    .createTable('commerce_runtimes')
    .addColumn('runtime_id', 'text', (c) => c.primaryKey())
    .addColumn('entry_agent_id', 'text', (c) => c.notNull())
    .addColumn('mode', 'text', (c) => c.notNull())
    .addColumn('stage', 'text', (c) => c.notNull())
    .addColumn('intent_id', 'text', (c) => c.references('intents.intent_id'))
    .addColumn('proposal_id', 'text', (c) => c.references('proposals.proposal_id'))
    .addColumn('match_session_id', 'text', (c) => c.references('match_sessions.match_session_id'))
    .addColumn('match_token_id', 'text', (c) => c.references('match_tokens.match_token_id'))
    .addColumn('commerce_budget', 'jsonb', (c) => c.notNull())
    .addColumn('commerce_memory_refs', 'jsonb', (c) => c.notNull().defaultTo(sql`'[]'::jsonb`))
    .addColumn('skill_refs', 'jsonb', (c) => c.notNull().defaultTo(sql`'[]'::jsonb`))
    .addColumn('request', 'jsonb', (c) => c.notNull().defaultTo(sql`'{}'::jsonb`))
    .addColumn('runtime_trace', 'jsonb', (c) => c.notNull())
    .addColumn('developer_id', 'text')
    .addColumn('key_id', 'text')
    .addColumn('started_at', 'timestamptz', now)
    .addColumn('updated_at', 'timestamptz', now)
    .addColumn('finished_at', 'timestamptz')
    .execute();
  await db.schema.createIndex('commerce_runtimes_intent_idx').on('commerce_runtimes').column('intent_id').execute();

  await db.schema
    .createTable('commerce_runtime_steps')
    .addColumn('step_id', 'text', (c) => c.primaryKey())
    .addColumn('runtime_id', 'text', (c) => c.notNull().references('commerce_runtimes.runtime_id').onDelete('cascade'))
    .addColumn('index', 'integer', (c) => c.notNull())
    .addColumn('agent_id', 'text', (c) => c.notNull())
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('input_summary', 'text', (c) => c.notNull())
    .addColumn('output_summary', 'text', (c) => c.notNull())
    .addColumn('budget_consumed', 'jsonb', (c) => c.notNull())
    .addColumn('started_at', 'timestamptz', now)
    .addColumn('finished_at', 'timestamptz')
    .addColumn('error', 'text')
    // A retried activity rewrites its step instead of adding a second one.
    .addUniqueConstraint('commerce_runtime_steps_runtime_index_key', ['runtime_id', 'index'])
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('commerce_runtime_steps').execute();
  await db.schema.dropTable('commerce_runtimes').execute();
}
