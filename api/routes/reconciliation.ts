import type { RouteRegistry } from './registry';

export function reconciliationRoutes(_r: RouteRegistry): void {}
