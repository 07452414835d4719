import type { ColumnType } from 'kysely';

/**
 * The column types every table file uses (timestamptz read back as Date, JSONB, columns with a
 * default). Apart from schema.ts, which gathers the table files, so they need not import it back.
 */
export type Timestamp = ColumnType<Date, Date | string | undefined, Date | string>;
export type NullableTimestamp = ColumnType<Date | null, Date | string | null | undefined, Date | string | null>;
export type Json<T = Record<string, unknown>> = ColumnType<T, string | T | undefined, string | T>;
/** A column with a database default: optional on insert. */
export type Defaulted<T> = ColumnType<T, T | undefined, T>;
