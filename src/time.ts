/** A stored timestamp as the API shows it: ISO 8601 in UTC, or null. */
export const iso = (d: Date | null) => (d ? d.toISOString() : null);
