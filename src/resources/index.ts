/**
 * @module resources
 * `roa/resources`: what a user needs to declare a resource (its views, bodies, policy and
 * ownership), mount it with `resourceHandler`, and purge caches after its writes.
 *
 * @example
 *   import { resourceHandler, rolePolicy } from 'roa/resources';
 *   app.all(spec.paths, resourceHandler(spec, { authenticator, purger }));
 */
export {
  resourceHandler,
  supportedMethods,
  type BodyFormat,
  type CreatedSpec,
  type PurgeTarget,
  type ResourceContext,
  type ResourceDeps,
  type ResourceSpec,
  type View,
  type WriteOutcome,
} from './resource.js';
export { mayModify, rolePolicy, type Permission } from './policy.js';
export { IdempotencyKeys, type IdempotencyOptions, type IdempotencyStore } from './idempotency.js';
export type { WriteCondition } from '../storage/store.js';
export { Purger, type PurgerLogger, type PurgerOptions, type PurgerStats } from './purger.js';
