import type { RouteRegistry } from './registry';

export function experienceRoutes(_r: RouteRegistry): void {}
