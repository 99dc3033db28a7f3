// A local OpenAI-compatible inference server for the AI tests (127.0.0.1, port 0). It answers
// /v1/models, /v1/chat/completions and /v1/embeddings like llama-server would, holds one model at a
// time (a request for another waits `swapDelayMs`: the spec's 10–30 s swap, scaled down), and can be
// told to misbehave: fail, be slow, answer malformed JSON, base64 embeddings or the wrong dimensions.
// Embeddings are a deterministic bag of words (each word adds ±1 on a few hashed dimensions), so
// texts sharing words are close in cosine and the tests can reason about ranking.
import { createHash } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export type Fault = 'fail' | 'malformed' | 'bad-json-content' | 'slow' | 'base64' | 'wrong-dimensions' | 'hang';

export interface FakeRequest {
  path: string;
  body: Record<string, unknown>;
  at: number;
}

export interface FakeInference {
  url: string;
  /** Requests received, in order. */
  requests: FakeRequest[];
  /** Faults applied to the next calls, one per call (chat and embeddings alike). */
  faults: Fault[];
  /** Faults applied once to the next embeddings call whose input contains the key (not consumed by
   *  background calls, such as the embedding sweep, that run while a test waits). */
  faultsForInput: Map<string, Fault>;
  /** Delays (ms) applied to the next calls, one per call, on top of any fault. */
  delays: number[];
  /** A fault applied to every call until cleared. */
  always: Fault | undefined;
  /** Chat answers to give next (raw `content` strings), one per call, before the default. */
  replies: string[];
  models: string[];
  swapDelayMs: number;
  slowMs: number;
  dimensions: number;
  loaded: string | undefined;
  swaps: number;
  chatCalls(): FakeRequest[];
  embedCalls(): FakeRequest[];
  close(): Promise<void>;
}

export function fakeEmbedding(text: string, dims = 4096): number[] {
  const v = new Array<number>(dims).fill(0);
  const words = text.toLowerCase().match(/[a-z0-9]+/g) ?? ['empty'];
  for (const w of words) {
    if (w.length < 3) continue;
    const h = createHash('sha256').update(w).digest();
    for (let k = 0; k < 4; k++) v[h.readUInt16BE(k * 2) % dims]! += h[8 + k]! & 1 ? 1 : -1;
  }
  // A small common component keeps unrelated texts near 0 rather than exactly 0.
  for (let i = 0; i < dims; i += 97) v[i]! += 0.05;
  return v;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function readJson(req: IncomingMessage): Promise<Record<string, unknown>> {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  const text = Buffer.concat(chunks).toString('utf8');
  return text ? (JSON.parse(text) as Record<string, unknown>) : {};
}

function defaultChat(body: Record<string, unknown>): string {
  const messages = (body.messages as Array<{ role: string; content: string }>) ?? [];
  const user = messages.filter((m) => m.role === 'user').at(-1)?.content ?? '';
  if (body.response_format) {
    const intent = /Intent:\s*(.*)/.exec(user)?.[1]?.trim() ?? 'a proposal';
    return JSON.stringify({
      title: `Proposal: ${intent}`.slice(0, 120),
      body: `## Summary\n\n${intent}\n\n## Budget\n\nTo be decided.`,
      suggested_budget: 1000,
      tags: ['community'],
    });
  }
  const title = /Title:\s*(.*)/.exec(user)?.[1]?.trim() ?? 'the proposal';
  return `This proposal, "${title}", is summarised in one sentence. It asks members to decide.`;
}

export async function startFakeInference(
  opts: { models?: string[]; swapDelayMs?: number; dimensions?: number } = {},
): Promise<FakeInference> {
  const fake: FakeInference = {
    url: '',
    requests: [],
    faults: [],
    faultsForInput: new Map(),
    always: undefined,
    delays: [],
    replies: [],
    models: opts.models ?? ['draft-7b-q4', 'embed-3b'],
    swapDelayMs: opts.swapDelayMs ?? 0,
    slowMs: 200,
    dimensions: opts.dimensions ?? 4096,
    loaded: undefined,
    swaps: 0,
    chatCalls: () => fake.requests.filter((r) => r.path === '/v1/chat/completions'),
    embedCalls: () => fake.requests.filter((r) => r.path === '/v1/embeddings'),
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((r) => server.close(() => r()));
    },
  };
  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const send = (status: number, body: unknown, raw = false) => {
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(raw ? String(body) : JSON.stringify(body));
    };
    try {
      const path = (req.url ?? '').split('?')[0]!;
      const body = req.method === 'POST' ? await readJson(req) : {};
      fake.requests.push({ path, body, at: Date.now() });
      if (path === '/v1/models' && req.method === 'GET')
        return send(200, {
          object: 'list',
          data: fake.models.map((id) => ({ id, object: 'model', owned_by: 'fake' })),
        });
      if (path !== '/v1/chat/completions' && path !== '/v1/embeddings')
        return send(404, { error: { message: 'not found' } });
      const inputs =
        path === '/v1/embeddings'
          ? (Array.isArray(body.input) ? (body.input as unknown[]) : [body.input]).map(String)
          : [];
      const keyed = [...fake.faultsForInput.keys()].find((k) => inputs.some((i) => i.includes(k)));
      let fault: Fault | undefined;
      if (keyed !== undefined) {
        fault = fake.faultsForInput.get(keyed);
        fake.faultsForInput.delete(keyed);
      } else fault = fake.faults.shift() ?? fake.always;
      const delay = fake.delays.shift();
      if (delay) await sleep(delay);
      const model = typeof body.model === 'string' ? body.model : '';
      if (!fake.models.includes(model)) return send(404, { error: { message: `model ${model} not found` } });
      if (fake.loaded !== model) {
        if (fake.loaded !== undefined) fake.swaps++;
        fake.loaded = model;
        if (fake.swapDelayMs) await sleep(fake.swapDelayMs);
      }
      if (fault === 'fail') return send(500, { error: { message: 'the model crashed' } });
      if (fault === 'hang') return void (await sleep(120_000));
      if (fault === 'slow') await sleep(fake.slowMs);
      if (fault === 'malformed') return send(200, '{"choices": [', true);
      if (path === '/v1/chat/completions') {
        const content =
          fault === 'bad-json-content'
            ? 'Sure! Here is your draft: {title: oops'
            : (fake.replies.shift() ?? defaultChat(body));
        return send(200, {
          id: 'chatcmpl-fake',
          object: 'chat.completion',
          model,
          choices: [{ index: 0, message: { role: 'assistant', content }, finish_reason: 'stop' }],
          usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 },
        });
      }
      const input = Array.isArray(body.input) ? (body.input as string[]) : [String(body.input)];
      const dims = fault === 'wrong-dimensions' ? 1024 : fake.dimensions;
      const data = input.map((text, index) => {
        const e = fakeEmbedding(text, dims);
        const embedding =
          fault === 'base64' || body.encoding_format === 'base64'
            ? Buffer.from(new Float32Array(e).buffer).toString('base64')
            : e;
        return { object: 'embedding', index, embedding };
      });
      return send(200, { object: 'list', model, data, usage: { prompt_tokens: 1, total_tokens: 1 } });
    } catch (e) {
      send(500, { error: { message: (e as Error).message } });
    }
  };
  // node:http ignores a handler's promise: a handler that throws drops the connection, which the caller sees.
  const server: Server = createServer(
    (req, res) =>
      void handle(req, res).catch((err: unknown) => res.destroy(err instanceof Error ? err : new Error(String(err)))),
  );
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  fake.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return fake;
}
