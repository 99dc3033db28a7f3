// POST /api/v1/send (spec 3 "Send flow"); auth ran in the onRequest hook (step 2).
import type { FastifyPluginAsync, FastifyReply } from 'fastify';
import type { BrandBook } from '../brands/brands.ts';
import { validateEnvelope } from '../envelope/envelope.ts';
import { errorBody, type Detail, type ErrorBody, type ErrorCode } from '../http/errors.ts';
import { fingerprintOf, IDEMPOTENCY_KEY, type IdempotencyStore, type StoredResult } from '../idempotency/store.ts';
import { ProviderError, type EmailProvider } from '../providers/provider.ts';
import type { Composer } from '../rendering/compose.ts';
import type { TemplateDefinition } from '../templates/template-schema.ts';
import { plainJson, writeInfo } from '../logging/line.ts';
import type { OutboundMessage } from '../rendering/compose.ts';
import type { FastifyBaseLogger } from 'fastify';
import type { Logger } from 'pino';

/**
 * The send's log line (D28): email.sent, or email.stub_send in stub mode. Written from its parts when
 * every value is plain ASCII (decision D42), else by pino from the object; the same bytes either way.
 * A request whose logger is not made yet (D45) has its line written from its parent's pieces and its
 * request id, as the child would write it.
 */
export function logSent(
  request: Pick<SendRequest, 'id' | 'traceId' | 'log' | 'parentLog'>,
  stub: boolean,
  messageId: string,
  message: OutboundMessage,
): void {
  const event = stub ? 'email.stub_send' : 'email.sent';
  const msg = stub ? 'stub mode: email not delivered' : 'email sent';
  const id = plainJson(messageId);
  const template = plainJson(message.type);
  const brand = plainJson(message.brand);
  let names = '';
  for (const a of message.attachments) {
    const name = plainJson(a.filename);
    if (name === undefined) {
      names = '!';
      break;
    }
    names += names === '' ? name : `,${name}`;
  }
  if (id !== undefined && template !== undefined && brand !== undefined && names !== '!') {
    const props = `,"event":"${event}","message_id":${id},"template":${template},"brand":${brand},"attachment_count":${message.attachments.length},"attachment_filenames":[${names}]`;
    const requestId = plainJson(request.id);
    const written =
      request.parentLog && requestId !== undefined
        ? writeInfo(
            request.parentLog,
            `,"request_id":${requestId}${request.traceId === undefined ? '' : `,"trace_id":"${request.traceId}"`}`,
            props,
            msg,
          )
        : writeInfo(request.log as unknown as Logger, '', props, msg);
    if (written) return;
  }
  request.log.info(
    {
      event,
      message_id: messageId,
      template: message.type,
      brand: message.brand,
      attachment_count: message.attachments.length,
      attachment_filenames: message.attachments.map((a) => a.filename),
    },
    msg,
  );
}

export interface SendRouteOptions {
  brands: BrandBook;
  templates: Record<string, TemplateDefinition>;
  composer: Composer;
  provider: EmailProvider;
  idempotency: IdempotencyStore;
  now: () => Date;
  /** Decision B69: told of every send's outcome and every idempotency-store error (the service's metrics). */
  observe?: SendObserver;
}

/** A send's outcome by template; `(invalid)` when the envelope named none the catalog has. */
export interface SendObserver {
  send(
    template: string,
    result: 'sent' | 'stubbed' | 'failed' | 'invalid' | 'render_failed' | 'replayed' | 'conflict' | 'key_reused',
  ): void;
  storeError(step: 'begin' | 'complete' | 'release'): void;
}

const INVALID_TEMPLATE = '(invalid)';
const unobserved: SendObserver = { send: () => undefined, storeError: () => undefined };

/** What the send flow needs from the request, whichever front door took it (decision D44). */
export interface SendRequest {
  id: string;
  /** The request's trace id (decision E16), bound in its logger beside the request id; hex digits only. */
  traceId?: string;
  idempotencyKey: string | string[] | undefined;
  body: unknown;
  /** The request's logger: its lines carry `request_id`. The front door makes it on first use (D45). */
  readonly log: FastifyBaseLogger;
  /**
   * The logger `log` is (or will be) a child of, with `{ request_id: id }`: when given, the send's line
   * is written from it and the id without making `log` (D45); the bytes are the child's either way.
   */
  readonly parentLog?: Logger;
}

/** The answer: status and JSON body (`{error, request_id, details?}` for errors, spec 3). */
export interface SendAnswer {
  status: number;
  body: StoredResult | ErrorBody;
  /** A repeat of a completed send (D9): answered with `Idempotent-Replayed: true`. */
  replayed?: true;
}

export function fail(status: number, error: ErrorCode, requestId: string, details?: Detail[]): SendAnswer {
  return { status, body: errorBody(error, requestId, details) };
}

/** Spec 3's send flow, steps 3 to 7, for an authenticated request whose body is parsed. */
export function createSender(opts: SendRouteOptions): (request: SendRequest) => SendAnswer | Promise<SendAnswer> {
  const { brands, templates, composer, provider, idempotency, now } = opts;
  const observe = opts.observe ?? unobserved;
  const typeNames = Object.keys(templates);
  const lookup = (type: string) => (Object.hasOwn(templates, type) ? templates[type] : undefined);

  const sendFailed = (request: SendRequest, message: OutboundMessage, err: unknown): SendAnswer => {
    const e = err instanceof ProviderError ? err : new ProviderError(String(err));
    request.log.error(
      {
        event: 'email.send_failed',
        provider: provider.name,
        provider_status: e.status,
        detail: e.detail,
        template: message.type,
      },
      'provider rejected the send',
    );
    observe.send(message.type, 'failed');
    return fail(500, 'send_failed', request.id);
  };
  const sent = (request: SendRequest, message: OutboundMessage, messageId: string): SendAnswer => {
    // email.sent counts real deliveries only; in stub mode the same fields go to email.stub_send (decision D28).
    logSent(request, provider.stub, messageId, message);
    observe.send(message.type, provider.stub ? 'stubbed' : 'sent');
    // Step 7.
    return { status: 200, body: { id: messageId, status: 'sent', stubbed: provider.stub, request_id: request.id } };
  };

  /**
   * Step 6: the provider. A provider that answers without a promise (the stub) is answered in this
   * turn: no promise is made for it (decision D45).
   */
  const deliver = (request: SendRequest, message: OutboundMessage): SendAnswer | Promise<SendAnswer> => {
    let delivery: { messageId: string } | Promise<{ messageId: string }>;
    try {
      delivery = provider.send(message, request);
    } catch (err) {
      return sendFailed(request, message, err);
    }
    // Any thenable is a pending delivery (a provider may use another promise library).
    if (typeof (delivery as { then?: unknown }).then === 'function') {
      return Promise.resolve(delivery).then(
        ({ messageId }) => sent(request, message, messageId),
        (err: unknown) => sendFailed(request, message, err),
      );
    }
    return sent(request, message, (delivery as { messageId: string }).messageId);
  };

  /** A send with an Idempotency-Key (D9): claimed before the provider, completed or released after it. */
  const deliverOnce = async (
    request: SendRequest,
    key: string,
    fingerprint: string,
    message: OutboundMessage,
  ): Promise<SendAnswer> => {
    let claim: Awaited<ReturnType<IdempotencyStore['begin']>>;
    try {
      claim = await idempotency.begin(key, fingerprint);
    } catch (err) {
      observe.storeError('begin');
      throw err;
    }
    if (claim.state !== 'new')
      observe.send(
        message.type,
        claim.state === 'replay' ? 'replayed' : claim.state === 'in_progress' ? 'conflict' : 'key_reused',
      );
    if (claim.state === 'replay') {
      request.log.info(
        { event: 'email.idempotent_replay', message_id: claim.result.id, original_request_id: claim.result.request_id },
        'repeat of a completed send; nothing sent',
      );
      return { status: 200, body: { ...claim.result, request_id: request.id }, replayed: true };
    }
    if (claim.state === 'in_progress') {
      return fail(409, 'idempotency_conflict', request.id, [
        { field: 'Idempotency-Key', message: 'a send with this key is still in progress' },
      ]);
    }
    if (claim.state === 'mismatch') {
      return fail(422, 'idempotency_key_reused', request.id, [
        { field: 'Idempotency-Key', message: 'was already used with a different request body' },
      ]);
    }
    let answer: SendAnswer;
    try {
      answer = await deliver(request, message);
    } catch (err) {
      // A failure that could not even be answered (its log line threw, say) frees the key too, so a
      // retry is not refused as in progress until the claim expires.
      await settleKey(request, 'release', () => idempotency.release(key));
      throw err;
    }
    // Decision D47: the provider has answered, so the store failing now must not change the answer. A
    // 500 after a delivered email would invite the very retry that sends it twice.
    if (answer.status === 200)
      await settleKey(request, 'complete', () => idempotency.complete(key, fingerprint, answer.body as StoredResult));
    else await settleKey(request, 'release', () => idempotency.release(key));
    return answer;
  };

  /** Records the outcome of a claimed send; a store that fails here is logged, not answered (D47). */
  const settleKey = async (
    request: SendRequest,
    step: 'complete' | 'release',
    record: () => Promise<void>,
  ): Promise<void> => {
    try {
      await record();
    } catch (err) {
      observe.storeError(step);
      request.log.error(
        { event: 'idempotency.record_failed', step, err },
        step === 'complete'
          ? 'the email was sent but its Idempotency-Key could not be recorded: a repeat after the claim expires would send it again'
          : 'the Idempotency-Key of a send that was not delivered (or not answered) could not be freed: a repeat is refused as in progress until the claim expires',
      );
    }
  };

  return (request) => {
    const key = request.idempotencyKey;
    if (key !== undefined && (typeof key !== 'string' || !IDEMPOTENCY_KEY.test(key))) {
      observe.send(INVALID_TEMPLATE, 'invalid');
      return fail(400, 'invalid_request', request.id, [
        { field: 'Idempotency-Key', message: 'must be 1 to 255 visible ASCII characters' },
      ]);
    }

    // Fingerprint the body as received, before validation fills in template defaults.
    const fingerprint = key === undefined ? '' : fingerprintOf(request.body);

    // Step 3: the envelope.
    const checked = validateEnvelope(request.body, brands, lookup, typeNames);
    if (!checked.ok) {
      observe.send(INVALID_TEMPLATE, 'invalid');
      return fail(400, 'invalid_request', request.id, checked.details);
    }

    // Steps 4 and 5: template data, rendering, template attachments before caller attachments.
    const composed = composer.compose(checked.envelope, now());
    if (!composed.ok) {
      observe.send(
        checked.envelope.template.type,
        composed.error === 'invalid_template_data' ? 'invalid' : 'render_failed',
      );
      if (composed.error === 'invalid_template_data')
        return fail(400, 'invalid_template_data', request.id, composed.details);
      request.log.error(
        { event: 'email.render_failed', template: checked.envelope.template.type, err: composed.cause },
        'template threw while rendering',
      );
      return fail(400, 'render_failed', request.id);
    }
    return key === undefined
      ? deliver(request, composed.message)
      : deliverOnce(request, key, fingerprint, composed.message);
  };
}

export const sendRoutes: FastifyPluginAsync<
  SendRouteOptions & { sender: (request: SendRequest) => SendAnswer | Promise<SendAnswer> }
> = async (app, { sender }) => {
  // A declared 200 shape lets Fastify serialise with a compiled stringifier instead of JSON.stringify
  // (the same bytes as JSON.stringify for these fields, which the other front door uses, D44).
  const sent = {
    type: 'object',
    required: ['id', 'status', 'stubbed', 'request_id'],
    properties: {
      id: { type: 'string' },
      status: { type: 'string' },
      stubbed: { type: 'boolean' },
      request_id: { type: 'string' },
    },
  } as const;

  app.post('/api/v1/send', { schema: { response: { 200: sent } } }, async (request, reply) => {
    const answer = await sender({
      id: request.id,
      idempotencyKey: request.headers['idempotency-key'],
      body: request.body,
      log: request.log,
    });
    if (answer.replayed) reply.header('idempotent-replayed', 'true');
    if (answer.status === 200) return answer.body;
    return (reply as FastifyReply).code(answer.status).send(answer.body);
  });
};
