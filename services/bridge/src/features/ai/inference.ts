// The bridge's one way to the inference server: the client behind the circuit breaker, behind the
// per-model queue, with the alerts. Unconfigured (no INFERENCE_URL), every call fails like an open
// circuit and no request leaves the bridge.
import { createCircuit, CircuitOpenError, type CircuitName } from './circuit.ts';
import {
  createInferenceClient,
  InferenceError,
  type ChatRequest,
  type ChatResult,
  type InferenceClient,
} from './inference-client.ts';
import { createModelQueue, type ModelQueue } from './model-queue.ts';
import type { Alerts } from './alerts.ts';

/** Spec 2 AI resources: an embedding is a float vector of dimension 4096. */
export const EMBEDDING_DIMENSIONS = 4096;

export class NotConfiguredError extends CircuitOpenError {}

export class WrongDimensionsError extends Error {
  constructor(
    readonly got: number,
    readonly model: string,
  ) {
    super(
      `the embedding model ${model} returned ${got} dimensions; the bridge stores ${EMBEDDING_DIMENSIONS} (spec 2): set INFERENCE_EMBED_MODEL to a ${EMBEDDING_DIMENSIONS}-dimension model`,
    );
  }
}

export interface InferenceSettings {
  url?: string;
  apiKey?: string;
  defaultModel: string;
  embedModel: string;
  timeoutMs: number;
  swapAllowanceMs: number;
  circuit: { enabled: boolean; threshold: number; resetMs: number; now?: () => number };
  queue?: { concurrency?: number; quantumMs?: number; maxWaiting?: number };
  alerts: Alerts;
  log: { info(obj: object, msg: string): void; warn(obj: object, msg: string): void };
  fetch?: typeof fetch;
  /** Told of every call to the inference server (the bridge's metrics: model latency, decision B69). */
  onModelCall?: (model: string, operation: string, seconds: number, outcome: 'ok' | 'error') => void;
}

export interface InferenceHealth {
  status: 'ok' | 'degraded' | 'unavailable' | 'not_configured';
  circuit: CircuitName;
  model_available: boolean;
  inference_host: string;
  default_model: string;
}

export interface Inference {
  readonly configured: boolean;
  readonly defaultModel: string;
  readonly embedModel: string;
  chat(
    req: Omit<ChatRequest, 'model'> & { model?: string },
    operation: string,
  ): Promise<ChatResult & { latency_ms: number }>;
  /** Unit-length vectors of EMBEDDING_DIMENSIONS floats, one per input. */
  embed(input: string[], operation: string): Promise<{ embeddings: number[][]; model: string; latency_ms: number }>;
  health(): Promise<InferenceHealth>;
  circuitState(): CircuitName;
  queueStats(): ReturnType<ModelQueue['stats']>;
}

export function normalise(v: number[]): number[] {
  let sum = 0;
  for (const x of v) sum += x * x;
  const n = Math.sqrt(sum);
  if (!(n > 0)) throw new InferenceError('malformed', 'the embedding is the zero vector');
  return v.map((x) => x / n);
}

export function createInference(s: InferenceSettings): Inference {
  const client: InferenceClient | undefined = s.url
    ? createInferenceClient({
        baseUrl: s.url,
        ...(s.apiKey && { apiKey: s.apiKey }),
        ...(s.fetch && { fetch: s.fetch }),
      })
    : undefined;
  let consecutive = 0;
  const circuit = createCircuit({
    ...s.circuit,
    onChange(from, to) {
      s.log.warn({ event: 'ai.circuit_changed', from, to }, `inference circuit ${from} → ${to}`);
      if (from === 'CLOSED' && to === 'OPEN')
        s.alerts.circuitOpened({ failures: consecutive, reason: 'consecutive inference failures' });
    },
  });
  const queue = createModelQueue({
    concurrency: s.queue?.concurrency ?? 4,
    quantumMs: s.queue?.quantumMs ?? 20_000,
    maxWaiting: s.queue?.maxWaiting ?? 500,
    onSwap: (from, to) =>
      s.log.info(
        { event: 'ai.model_swap', from: from ?? null, to },
        `inference model swap ${from ?? '(none)'} → ${to}`,
      ),
  });
  const guarded = async <T>(
    model: string,
    operation: string,
    call: (c: InferenceClient, timeoutMs: number) => Promise<T>,
  ): Promise<{ value: T; latency_ms: number }> => {
    if (!client) throw new NotConfiguredError();
    const started = performance.now();
    const value = await circuit.execute(() =>
      queue.run(model, async (swap) => {
        const t0 = performance.now();
        let outcome: 'ok' | 'error' = 'error';
        try {
          const v = await call(client, s.timeoutMs + (swap ? s.swapAllowanceMs : 0));
          consecutive = 0;
          outcome = 'ok';
          return v;
        } catch (e) {
          if (e instanceof InferenceError && e.kind === 'unavailable') consecutive++;
          s.log.warn(
            {
              event: 'ai.inference_failed',
              operation,
              model,
              kind: e instanceof InferenceError ? e.kind : 'error',
              err: (e as Error).message,
            },
            'inference call failed',
          );
          throw e;
        } finally {
          s.alerts.inferenceLatency(performance.now() - t0, { model, operation });
          s.onModelCall?.(model, operation, (performance.now() - t0) / 1000, outcome);
        }
      }),
    );
    return { value, latency_ms: Math.round(performance.now() - started) };
  };
  return {
    configured: client !== undefined,
    defaultModel: s.defaultModel,
    embedModel: s.embedModel,
    async chat(req, operation) {
      const model = req.model ?? s.defaultModel;
      const { value, latency_ms } = await guarded(model, operation, (c, t) => c.chat({ ...req, model }, t));
      return { ...value, latency_ms };
    },
    async embed(input, operation) {
      const model = s.embedModel;
      const { value, latency_ms } = await guarded(model, operation, (c, t) => c.embed(model, input, t));
      for (const e of value.embeddings)
        if (e.length !== EMBEDDING_DIMENSIONS) throw new WrongDimensionsError(e.length, value.model);
      return { embeddings: value.embeddings.map(normalise), model: value.model, latency_ms };
    },
    async health() {
      const circuitName = circuit.state();
      const base = { circuit: circuitName, inference_host: client?.host ?? '', default_model: s.defaultModel };
      if (!client) return { status: 'not_configured', model_available: false, ...base };
      // The model list is a cheap GET that never loads a model; it does not go through the breaker.
      let available = false;
      try {
        const ids = await client.models(Math.min(s.timeoutMs, 5_000));
        available = ids.includes(s.defaultModel);
      } catch {
        return { status: 'unavailable', model_available: false, ...base };
      }
      return { status: available && circuitName === 'CLOSED' ? 'ok' : 'degraded', model_available: available, ...base };
    },
    circuitState: () => circuit.state(),
    queueStats: () => queue.stats(),
  };
}
