// Builds the service the way production does (config from an environment), with captured logs.
import type { InjectOptions } from 'fastify';
import { captureLogs, startRecorder, type Recorder, type Responder } from '@domdao/test-helpers';
import { buildApp, type BuildOptions } from '../src/app.ts';
import { loadNotificationConfig } from '../src/config.ts';
import { templates, type TemplateType } from '../src/templates/catalog.ts';

export const TEST_TOKEN = 'test-notification-token-0123456789';
export const DAO = 'domdao.example';
export const PRODUCT = 'domapp.example';

export function testEnv(overrides: Record<string, string | undefined> = {}): NodeJS.ProcessEnv {
  return { NODE_ENV: 'test', SERVICE_TOKEN: TEST_TOKEN, LOG_LEVEL: 'info', ...overrides };
}

export async function makeService(env: Record<string, string | undefined> = {}, opts: Partial<BuildOptions> = {}) {
  const logs = captureLogs();
  const app = await buildApp({ config: loadNotificationConfig(testEnv(env)), logStream: logs.stream, ...opts });
  const send = (body: unknown, headers: Record<string, string> = {}) =>
    app.inject({
      method: 'POST',
      url: '/api/v1/send',
      headers: { authorization: `Bearer ${TEST_TOKEN}`, 'content-type': 'application/json', ...headers },
      payload: typeof body === 'string' ? body : JSON.stringify(body),
    } satisfies InjectOptions);
  return { app, logs, send, close: () => app.close() };
}

/** The service wired to a local stand-in of the provider's HTTP API, so rendered output is visible. */
export async function makeServiceWithProvider(
  env: Record<string, string | undefined> = {},
  responder?: Responder,
  opts: Partial<BuildOptions> = {},
) {
  const provider: Recorder = await startRecorder(responder);
  const service = await makeService(
    {
      EMAIL_PROVIDER: 'resend',
      EMAIL_PROVIDER_API_KEY: 're_test_key',
      EMAIL_PROVIDER_API_URL: provider.url,
      PROVIDER_TIMEOUT_MS: '2000',
      ...env,
    },
    opts,
  );
  return {
    ...service,
    provider,
    /** The JSON body of the n-th provider call. */
    sent: (n = -1) => provider.requests.at(n)!.json() as ProviderPayload,
    close: async () => {
      await service.close();
      await provider.close();
    },
  };
}

export interface ProviderPayload {
  from: string;
  to: string[];
  subject: string;
  html: string;
  text: string;
  headers?: Record<string, string>;
  attachments?: Array<{ filename: string; content: string; content_type?: string }>;
}

export function validBody(
  type: TemplateType,
  overrides: { data?: Record<string, unknown>; domain?: string; to?: string } = {},
) {
  const t = templates[type];
  return {
    type,
    to: overrides.to ?? 'ada@example.com',
    domain: overrides.domain ?? DAO,
    data: { ...structuredClone(t.example as Record<string, unknown>), ...overrides.data },
  };
}

export function withoutField(data: Record<string, unknown>, field: string): Record<string, unknown> {
  const copy = { ...data };
  delete copy[field];
  return copy;
}
