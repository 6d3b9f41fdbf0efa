/**
 * @module gateway
 * Public surface of the caching gateway (`roa/gateway`): the gateway, its store contract and the in-memory store.
 */
export { createGateway, ROA_MEDIA_TYPES } from './proxy.js';
export type { Gateway, GatewayOptions, GatewayStats, GatewayLogger, GatewayServer, GatewayTls, InvalidationTarget } from './proxy.js';
export type { CacheStore, StoredResponse, Variants } from './cache-store.js';
export { MemoryCacheStore, type MemoryCacheStoreOptions } from './memory-cache-store.js';
export { runGateway } from './run-gateway.js';
export type { RunGatewayOptions } from './run-gateway.js';
