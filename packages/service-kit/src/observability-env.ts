// The variables every service reads for its access lines and metrics (decisions D50, B70), one
// definition so the three services and their generated configuration references (docs/reference/) say the same.
import { Env } from '@domdao/config';

/**
 * The metrics ports the deployment examples give each service run alone (decision B70); the services
 * default to none (0), so no two processes on one machine race for a port nobody asked for. `npm start`
 * serves one listener for all three on NPM_START_METRICS_PORT.
 */
export const SUGGESTED_METRICS_PORTS = { gateway: 9464, notification: 9465, bridge: 9466 } as const;
export const NPM_START_METRICS_PORT = 9464;

export function observabilityEnv(service: keyof typeof SUGGESTED_METRICS_PORTS) {
  return {
    LOG_REQUESTS: Env.bool(
      true,
      'one `request.completed` access line per request at info (successful health checks excepted); `false` = only failed requests at info, the rest at debug',
    ),
    METRICS_PORT: Env.port(
      0,
      `port of the Prometheus metrics listener (GET /metrics), never the public port; \`0\` = no metrics listener (deployments use ${SUGGESTED_METRICS_PORTS[service]}; \`npm start\`: one listener for all three services, METRICS_PORT ${NPM_START_METRICS_PORT})`,
    ),
    METRICS_HOST: Env.string(
      'address the metrics listener binds (loopback by default: widen it only on a private network, with METRICS_TOKEN)',
      '127.0.0.1',
    ),
    METRICS_TOKEN: Env.secret(
      'bearer token a scrape of /metrics must present; unset = none (the listener address is the protection)',
    ),
  };
}
