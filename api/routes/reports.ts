import type { RouteRegistry } from './registry';

export function reportRoutes(_r: RouteRegistry): void {}
