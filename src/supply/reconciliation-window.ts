/** The reconciliation window's old import path; the helper lives in ./window.ts. */
export { RECONCILIATION_DAYS, windowEnding, type ReconciliationWindow } from './window';
