// Every workflow the worker runs is exported here (the bundler's entry point). One file per flow
// (docs/ARCHITECTURE.md); the exported names are the workflow types and never change.
export { ping } from './ping';
export { intentSurge, delivery, dlqReplay } from './dispatch';
export { agenticCheckout } from './checkout';
export { commerceRuntime } from './runtime';
export { reconciliation } from './reconciliation';
export { runtimeReconciler } from './runtime-reconciler';
export { feedRefresh } from './feed-refresh';
export { housekeepingPurge, proposalExpirySweep, surgeSweep, systemChores } from './housekeeping';
export { catalogEmbedding } from './catalog-embedding';
