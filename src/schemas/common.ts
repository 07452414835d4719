import { z } from 'zod';
import { NUL_ESCAPE } from '../input-guard';

export const ErrorBody = z
  .object({
    error: z.string().meta({ description: 'Machine-readable error code.' }),
    message: z.string().meta({ description: 'Human-readable explanation.' }),
  })
  .meta({ id: 'Error', description: 'Error envelope used by every endpoint.' });

export const isoDateTime = z.string().meta({ format: 'date-time' });

/** What String.prototype.trim removes (ECMAScript WhiteSpace and LineTerminator), as a character class body. */
const TRIMMED = String.raw`\t\n\v\f\r \u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000\ufeff`;
/**
 * Text that must say something: at least one character trim() keeps, and no NUL. As a pattern the
 * document publishes, so a blank string is schema-invalid there as it is a 400 here.
 */
const NON_BLANK = new RegExp(`^[^${NUL_ESCAPE}]*[^${NUL_ESCAPE}${TRIMMED}][^${NUL_ESCAPE}]*$`);

/** Free text, trimmed, 1..max characters after trimming. */
export const text = (max = 500) => z.string().regex(NON_BLANK, 'must not be blank').trim().min(1).max(max);

/**
 * A letter code such as an ISO country or currency code. Accepted in any case and with surrounding
 * white space, stored upper-case; the pattern the document publishes admits exactly what is accepted,
 * so a lower-case code is schema-valid there as it is a 200 here.
 */
export const letterCode = (length: number, description: string) =>
  z
    .string()
    .regex(new RegExp(`^[${TRIMMED}]*[A-Za-z]{${length}}[${TRIMMED}]*$`), description)
    .trim()
    .toUpperCase();

export const countryCode = letterCode(2, 'ISO 3166-1 alpha-2 code, e.g. US');
