import { z } from 'zod';
import { NUL_ESCAPE } from '../input-guard';
import { minorUnitDigits, toMinorUnits } from '../money';

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

/** The published pattern of text that must say something (see NON_BLANK), for schemas written by hand. */
export const NON_BLANK_PATTERN = NON_BLANK.source;

/**
 * The pattern of a value the service checks after trim(): 1..max characters once trimmed, no NUL.
 * (text() bounds the text as sent; a few domain checks, such as a remix value, bound it trimmed.)
 */
export const trimmedTextPattern = (max: number) =>
  `^[${TRIMMED}]*[^${NUL_ESCAPE}${TRIMMED}](?:[^${NUL_ESCAPE}]{0,${max - 2}}[^${NUL_ESCAPE}${TRIMMED}])?[${TRIMMED}]*$`;

/**
 * Free text: 1..max characters, not blank, no NUL; stored trimmed. The rules hold for the text as sent
 * (trimming comes after them), so the published pattern and maxLength accept exactly what is accepted.
 * `message` replaces the default error for a missing or blank value.
 */
export const text = (max = 500, message?: string) =>
  z
    .string(message ? { error: message } : undefined)
    .regex(NON_BLANK, message ?? 'must not be blank')
    .max(max)
    .trim();

/**
 * A path parameter that names a record by the id the caller registered (a merchant id): 1..max
 * characters with at least one that is not white space, no NUL, taken as sent. A blank one cannot name
 * anything, and the published pattern says so.
 */
export const pathId = (max: number) => z.string().regex(NON_BLANK, 'must not be blank').max(max);

/**
 * A token such as an id or a code: the pattern `core` (its length included), with any white space
 * around it, which is dropped. The published pattern says the same, so what it admits is accepted.
 */
export const token = (core: string, message: string) =>
  z
    .string()
    .regex(new RegExp(`^[${TRIMMED}]*(?:${core})[${TRIMMED}]*$`), message)
    .trim();

/**
 * A letter code such as an ISO country or currency code. Accepted in any case and with surrounding
 * white space, stored upper-case; the pattern the document publishes admits exactly what is accepted,
 * so a lower-case code is schema-valid there as it is a 200 here.
 */
export const letterCode = (length: number, description: string) => token(`[A-Za-z]{${length}}`, description).toUpperCase();

export const countryCode = letterCode(2, 'ISO 3166-1 alpha-2 code, e.g. US');

/**
 * The smallest amount any money field takes: one cent. Below it an amount would round to nothing in
 * most currencies (5e-324 USD is 0 cents); no caller means that, so it is refused, and the published
 * `minimum` says so.
 */
export const MIN_MONEY_AMOUNT = 0.01;

/** An amount of money in major units (12.34), from one cent to `max`; its description ends with the rule. */
export const money = (max: number, description = 'Major units of the currency.') =>
  z
    .number()
    .min(MIN_MONEY_AMOUNT)
    .max(max)
    .meta({
      description: `${description} At least ${MIN_MONEY_AMOUNT}, and at least one minor unit of the currency (1 in a zero-decimal currency such as JPY).`,
    });

/**
 * For an object holding money `fields` and their `currency`: each amount is at least one minor unit of
 * that currency, so a zero-decimal currency takes whole units (0.4 JPY rounds to nothing and is
 * refused; 0.5 JPY is 1). A rule across two members: the operation's description states it.
 */
export const atLeastOneMinorUnit =
  <T extends { currency?: string }>(...fields: Array<keyof T & string>) =>
  (value: T, ctx: z.RefinementCtx): void => {
    const currency = value.currency ?? 'USD';
    for (const field of fields) {
      const amount = value[field];
      if (typeof amount === 'number' && toMinorUnits(amount, currency) < 1) {
        const unit = 10 ** -minorUnitDigits(currency);
        ctx.addIssue({ code: 'custom', path: [field], message: `must be at least one minor unit of ${currency.toUpperCase()} (${unit})` });
      }
    }
  };

/** The Agentic Commerce Protocol's flat error, which the gateway's `/acp/` paths answer instead of ErrorBody. */
export const AcpErrorBody = z
  .object({
    type: z.enum(['invalid_request', 'processing_error', 'service_unavailable']),
    code: z.string(),
    message: z.string(),
    param: z.string().optional().meta({ description: 'JSONPath of the offending field.' }),
  })
  .meta({ id: 'AcpError' });
