/**
 * @module gateway
 * Public surface of the caching gateway.
 */
export { createGateway, ROA_MEDIA_TYPES } from './proxy.js';
export type { Gateway, GatewayOptions, GatewayStats, GatewayLogger } from './proxy.js';
export type { CacheStore, StoredResponse } from './cache-store.js';
export { MemoryCacheStore } from './memory-cache-store.js';
export { runGateway } from './run-gateway.js';
export type { RunGatewayOptions } from './run-gateway.js';
