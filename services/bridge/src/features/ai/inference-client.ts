// One client for OpenAI-compatible inference servers (llama.cpp's llama-server, vLLM, Ollama's /v1):
// chat completions, embeddings and the model list. Embeddings are always asked for as floats:
// several servers and client libraries mis-decode base64 embeddings silently (decision A4).
// Every failure is an InferenceError whose `kind` says whether it counts against the circuit.
import { currentTraceparent } from '@domdao/service-kit';

export type InferenceFailure =
  /** No answer in time, connection refused or reset, a 5xx or 429: the server is unwell. */
  | 'unavailable'
  /** The server answered, but not with what the protocol promises (not JSON, missing fields). */
  | 'malformed'
  /** The server refused the request itself (4xx but 429): our request, not its health. */
  | 'rejected';

export class InferenceError extends Error {
  constructor(
    readonly kind: InferenceFailure,
    message: string,
    readonly status?: number,
  ) {
    super(message);
  }
}

export interface ChatMessage {
  role: 'system' | 'user' | 'assistant';
  content: string;
}

export interface ChatRequest {
  model: string;
  messages: ChatMessage[];
  max_tokens?: number;
  temperature?: number;
  /** OpenAI structured output: `{ type: 'json_schema', json_schema: { name, schema, strict } }`. */
  response_format?: Record<string, unknown>;
}

export interface ChatResult {
  content: string;
  model: string;
}

export interface EmbedResult {
  embeddings: number[][];
  model: string;
}

export interface InferenceClientOptions {
  baseUrl: string;
  apiKey?: string;
  fetch?: typeof fetch;
}

export interface InferenceClient {
  readonly host: string;
  chat(req: ChatRequest, timeoutMs: number): Promise<ChatResult>;
  embed(model: string, input: string[], timeoutMs: number): Promise<EmbedResult>;
  models(timeoutMs: number): Promise<string[]>;
}

export function createInferenceClient(o: InferenceClientOptions): InferenceClient {
  const base = o.baseUrl.replace(/\/+$/, '').replace(/\/v1$/, '');
  const doFetch = o.fetch ?? fetch;
  const call = async (method: 'GET' | 'POST', path: string, body: unknown, timeoutMs: number): Promise<unknown> => {
    const traceparent = currentTraceparent();
    let res: Response;
    try {
      res = await doFetch(`${base}${path}`, {
        method,
        headers: {
          accept: 'application/json',
          ...(body !== undefined && { 'content-type': 'application/json' }),
          ...(o.apiKey && { authorization: `Bearer ${o.apiKey}` }),
          // Decision E16: the inference server sees the trace of the request (or job run) that called it.
          ...(traceparent && { traceparent }),
        },
        ...(body !== undefined && { body: JSON.stringify(body) }),
        signal: AbortSignal.timeout(timeoutMs),
      });
    } catch (e) {
      const err = e as Error;
      const timedOut = err.name === 'TimeoutError' || err.name === 'AbortError';
      throw new InferenceError(
        'unavailable',
        timedOut
          ? `no answer from the inference server within ${timeoutMs} ms`
          : `inference server unreachable: ${(err as { cause?: Error }).cause?.message ?? err.message}`,
      );
    }
    let text: string;
    try {
      text = await res.text();
    } catch (e) {
      throw new InferenceError('unavailable', `inference answer cut short: ${(e as Error).message}`, res.status);
    }
    if (!res.ok) {
      const kind = res.status >= 500 || res.status === 429 || res.status === 408 ? 'unavailable' : 'rejected';
      throw new InferenceError(kind, `inference server answered ${res.status}: ${text.slice(0, 200)}`, res.status);
    }
    try {
      return JSON.parse(text) as unknown;
    } catch {
      throw new InferenceError(
        'malformed',
        `inference server answered ${path} with something that is not JSON`,
        res.status,
      );
    }
  };
  return {
    host: new URL(base).host,
    async chat(req, timeoutMs) {
      const r = (await call('POST', '/v1/chat/completions', { ...req, stream: false }, timeoutMs)) as {
        model?: unknown;
        choices?: Array<{ message?: { content?: unknown } }>;
      };
      const content = r?.choices?.[0]?.message?.content;
      if (typeof content !== 'string')
        throw new InferenceError('malformed', 'chat completion without choices[0].message.content');
      return { content, model: typeof r.model === 'string' && r.model ? r.model : req.model };
    },
    async embed(model, input, timeoutMs) {
      const r = (await call('POST', '/v1/embeddings', { model, input, encoding_format: 'float' }, timeoutMs)) as {
        model?: unknown;
        data?: Array<{ index?: unknown; embedding?: unknown }>;
      };
      if (!Array.isArray(r?.data) || r.data.length !== input.length)
        throw new InferenceError('malformed', `embeddings answer without one item per input (${input.length})`);
      const out: number[][] = new Array<number[]>(input.length);
      for (const [i, item] of r.data.entries()) {
        const at = typeof item.index === 'number' ? item.index : i;
        // A base64 string here means the server ignored encoding_format: refuse rather than guess its byte order.
        if (!Array.isArray(item.embedding))
          throw new InferenceError(
            'malformed',
            `embedding ${at} is not an array of floats (the server ignored encoding_format "float")`,
          );
        if (!item.embedding.every((x) => typeof x === 'number' && Number.isFinite(x)))
          throw new InferenceError('malformed', `embedding ${at} holds a value that is not a finite number`);
        if (at < 0 || at >= input.length || out[at])
          throw new InferenceError('malformed', `embedding index ${at} out of place`);
        out[at] = item.embedding as number[];
      }
      return { embeddings: out, model: typeof r.model === 'string' && r.model ? r.model : model };
    },
    async models(timeoutMs) {
      const r = (await call('GET', '/v1/models', undefined, timeoutMs)) as {
        data?: Array<{ id?: unknown }>;
        models?: Array<{ name?: unknown; model?: unknown }>;
      };
      const ids = new Set<string>();
      for (const m of r?.data ?? []) if (typeof m.id === 'string') ids.add(m.id);
      // llama-server also lists `models` (name/model), Ollama-style.
      for (const m of r?.models ?? []) for (const v of [m.name, m.model]) if (typeof v === 'string') ids.add(v);
      return [...ids];
    },
  };
}
