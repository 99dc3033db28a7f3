export { parseForeignTokens, TokenRegistry, tokenPrefix, TOKEN_WIDTH, type AuthResult } from './bearer.ts';
export { createLogger, type LoggerOptions, type ServiceLogger } from './logger.ts';
export { clientAddress, parseTrustProxy } from './trust-proxy.ts';
export { isRfc4122Uuid, requestIdFor } from './request-id.ts';
export { drainOnClose, IDLE_CLOSE_MS, type DrainableApp, type DrainOptions } from './drain.ts';
export { LINGER_MS, lingerAfterEarlyAnswers, type LingeringApp } from './early-answer.ts';
export { sourceIpClass, type IpClass } from './ip-class.ts';
export {
  continueTrace,
  currentTraceparent,
  inNewTrace,
  parseTraceparent,
  traceOf,
  traceparentOf,
  traceRequests,
  traceStore,
  type TraceContext,
} from './trace-context.ts';
export { CALL_BUCKETS, HTTP_BUCKETS, Metrics, UNMATCHED_ROUTE } from './metrics.ts';
export {
  listenForMetrics,
  METRICS_PATH,
  serveMetrics,
  type MetricsListener,
  type MetricsListenerOptions,
} from './metrics-server.ts';
export {
  accessLevel,
  accessLine,
  observeRequests,
  type AccessLineFields,
  type ObserveOptions,
} from './observe-requests.ts';
export {
  checkReadiness,
  httpCheck,
  READINESS_TIMEOUT_MS,
  type ReadinessAnswer,
  type ReadinessCheck,
} from './readiness.ts';
export { NPM_START_METRICS_PORT, observabilityEnv, SUGGESTED_METRICS_PORTS } from './observability-env.ts';
export { runService } from './run-service.ts';
