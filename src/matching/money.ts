/** Money is stored as integer minor units (DESIGN §7); the API shows major-unit numbers. */
export const toCents = (amount: number) => Math.round(amount * 100);
export const fromCents = (cents: number | null) => (cents === null ? null : cents / 100);
