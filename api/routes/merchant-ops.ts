import type { RouteRegistry } from './registry';

export function merchantOpsRoutes(_r: RouteRegistry): void {}
