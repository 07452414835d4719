// Every workflow the worker runs is exported here (the bundler's entry point).
export { ping } from './ping';
export { intentSurge } from './intent-surge';
export { delivery } from './delivery';
export { dlqReplay } from './dlq-replay';
export { agenticCheckout } from './agentic-checkout';
export { commerceRuntime } from './commerce-runtime';
export { reconciliation } from './reconciliation';
export { runtimeReconciler } from './runtime-reconciler';
export { housekeepingPurge, proposalExpirySweep, surgeSweep } from './housekeeping';
