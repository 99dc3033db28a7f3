// The OpenAPI 3.1 description of this service, generated from the same schemas that validate requests,
// so it cannot drift. Served at GET /api/v1/openapi.json (bearer, like every /api/v1 route but health)
// and committed as docs/api/notification.openapi.json by `npm run openapi`.
import type { FastifyPluginAsync } from 'fastify';
import type { BrandBook } from '../brands/brands.ts';
import { MAX_ATTACHMENT_BYTES, MAX_ATTACHMENTS } from '../envelope/attachments.ts';
import type { TemplateDefinition } from '../templates/template-schema.ts';

const errorResponse = (description: string, codes: string[]) => ({
  description,
  content: {
    'application/json': {
      schema: { $ref: '#/components/schemas/Error' },
      example: { error: codes[0], request_id: '7d9f1a52-3c4b-4e8d-9a1f-2b3c4d5e6f70' },
    },
  },
});

/** `membership-confirm` → `MembershipConfirmRequest`: one named schema per template, so the discriminator can select it. */
export const schemaName = (type: string) =>
  `${type.replace(/(^|-)([a-z0-9])/g, (_m, _d, c: string) => c.toUpperCase())}Request`;

export function buildOpenApi(templates: Record<string, TemplateDefinition>, brands: BrandBook, version: string) {
  const dao = brands.brands.find((b) => b.key === 'dao')!.domain;
  const variants = Object.values(templates).map((t) => ({
    title: t.type,
    description: `${t.description} Brands: ${t.brands === 'dao' ? 'DAO only' : 'both'}.`,
    type: 'object',
    required: ['type', 'to', 'domain', 'data'],
    properties: {
      type: { const: t.type },
      to: { $ref: '#/components/schemas/Address' },
      domain: { type: 'string', enum: t.brands === 'dao' ? [dao] : brands.domains },
      data: JSON.parse(JSON.stringify(t.schema)) as object,
      attachments: { $ref: '#/components/schemas/Attachments' },
    },
    example: { type: t.type, to: 'ada@example.com', domain: dao, data: t.example },
  }));
  return {
    openapi: '3.1.0',
    info: {
      title: 'DOM DAO notification service',
      version,
      description:
        'Transactional and digest email for two brands. Every response carries request_id and the X-Request-Id header. ' +
        'When SERVICE_TOKEN is unset every request answers 503 service_unavailable. ' +
        'String patterns are ECMA-262 regular expressions that mean the same with or without the `u` flag.',
      contact: { name: 'DOM DAO platform', url: 'https://domdao.example/support' },
      license: { name: 'Apache-2.0', identifier: 'Apache-2.0' },
    },
    servers: [{ url: '/', description: 'the service that serves this document (port 3100 by default)' }],
    tags: [
      { name: 'email', description: 'Render and send transactional email' },
      { name: 'service', description: 'Health and this document' },
    ],
    security: [{ bearer: [] }],
    paths: {
      '/api/v1/health': {
        get: {
          summary: 'Liveness',
          description: 'Answers without a token; 503 while fail-closed (SERVICE_TOKEN unset at boot).',
          operationId: 'getHealth',
          tags: ['service'],
          security: [],
          responses: {
            '200': {
              description: 'ok',
              content: { 'application/json': { schema: { $ref: '#/components/schemas/Health' } } },
            },
            '503': errorResponse('SERVICE_TOKEN unset at boot', ['service_unavailable']),
          },
        },
      },
      '/api/v1/send': {
        post: {
          summary: 'Render a template for a brand and send it',
          description:
            'Validates the envelope and the template data, renders the branded message with its attachments and hands it to the provider (or the stub).',
          operationId: 'sendEmail',
          tags: ['email'],
          parameters: [
            {
              name: 'X-Request-Id',
              in: 'header',
              required: false,
              schema: { type: 'string', format: 'uuid' },
              description: 'kept only if an RFC 4122 UUID v1-v5',
            },
            {
              name: 'Idempotency-Key',
              in: 'header',
              required: false,
              schema: { type: 'string', minLength: 1, maxLength: 255, pattern: '^[\\x21-\\x7e]+$' },
              description:
                'a repeat within 24 h returns the first result (header Idempotent-Replayed: true) and sends nothing',
            },
          ],
          requestBody: {
            required: true,
            content: {
              'application/json': {
                schema: {
                  oneOf: variants.map((v) => ({ $ref: `#/components/schemas/${schemaName(v.title)}` })),
                  discriminator: {
                    propertyName: 'type',
                    mapping: Object.fromEntries(
                      variants.map((v) => [v.title, `#/components/schemas/${schemaName(v.title)}`]),
                    ),
                  },
                },
              },
            },
          },
          responses: {
            '200': {
              description: 'sent (or stubbed)',
              content: { 'application/json': { schema: { $ref: '#/components/schemas/SendResponse' } } },
            },
            '400': errorResponse('invalid_request, invalid_template_data (both with details[]) or render_failed', [
              'invalid_request',
              'invalid_template_data',
              'render_failed',
            ]),
            '401': errorResponse('bearer token absent, malformed or wrong', ['unauthorized']),
            '403': errorResponse('token of another platform service', ['forbidden']),
            '409': errorResponse('a send with this Idempotency-Key is in progress', ['idempotency_conflict']),
            '413': errorResponse('body over MAX_BODY_BYTES', ['payload_too_large']),
            '415': errorResponse('body is not application/json', ['unsupported_media_type']),
            '422': errorResponse('Idempotency-Key reused with another body', ['idempotency_key_reused']),
            '500': errorResponse('provider rejected the send (details in server logs)', ['send_failed']),
            '503': errorResponse('SERVICE_TOKEN unset at boot', ['service_unavailable']),
          },
        },
      },
      '/api/v1/openapi.json': {
        get: {
          summary: 'This document',
          description:
            'The OpenAPI 3.1 description of this service, behind the bearer token like every /api/v1 route but health.',
          operationId: 'getOpenApi',
          tags: ['service'],
          responses: {
            '200': {
              description: 'OpenAPI 3.1 document',
              content: {
                'application/json': {
                  schema: {
                    type: 'object',
                    required: ['openapi', 'info', 'paths'],
                    properties: { openapi: { type: 'string' }, info: { type: 'object' }, paths: { type: 'object' } },
                  },
                },
              },
            },
            '401': errorResponse('bearer token absent, malformed or wrong', ['unauthorized']),
            '403': errorResponse('token of another platform service', ['forbidden']),
            '503': errorResponse('SERVICE_TOKEN unset at boot', ['service_unavailable']),
          },
        },
      },
    },
    components: {
      securitySchemes: {
        bearer: { type: 'http', scheme: 'bearer', description: 'SERVICE_TOKEN (callers: NOTIFICATION_SERVICE_TOKEN)' },
      },
      schemas: {
        ...Object.fromEntries(variants.map((v) => [schemaName(v.title), v])),
        Address: {
          type: 'string',
          maxLength: 254,
          description: 'one bare RFC 5322 addr-spec; internationalised addresses accepted',
        },
        Attachments: {
          type: 'array',
          maxItems: MAX_ATTACHMENTS,
          items: {
            type: 'object',
            required: ['filename', 'content'],
            properties: {
              filename: {
                type: 'string',
                maxLength: 255,
                description: 'no path separators, control or invisible characters',
              },
              content: {
                type: 'string',
                contentEncoding: 'base64',
                description: `strict padded base64, at most ${MAX_ATTACHMENT_BYTES} bytes decoded`,
              },
              content_type: { type: 'string', pattern: '^[\\x20-\\x7e]{1,255}$' },
            },
          },
        },
        SendResponse: {
          type: 'object',
          required: ['id', 'status', 'stubbed', 'request_id'],
          properties: {
            id: { type: 'string', description: 'provider message id, or stub_… in stub mode' },
            status: { const: 'sent' },
            stubbed: { type: 'boolean', description: 'true: nothing was delivered (no EMAIL_PROVIDER_API_KEY)' },
            request_id: { type: 'string', format: 'uuid' },
          },
        },
        Health: {
          type: 'object',
          required: ['status', 'request_id'],
          properties: {
            status: { const: 'ok' },
            version: { type: 'string' },
            request_id: { type: 'string', format: 'uuid' },
          },
        },
        Error: {
          type: 'object',
          required: ['error', 'request_id'],
          properties: {
            error: { type: 'string' },
            request_id: { type: 'string', format: 'uuid' },
            details: {
              type: 'array',
              items: {
                type: 'object',
                required: ['field', 'message'],
                properties: {
                  field: { type: 'string', examples: ['to', 'attachments[2].filename', 'data.items[0].title'] },
                  message: { type: 'string' },
                },
              },
            },
          },
        },
      },
    },
  };
}

export const openapiRoutes: FastifyPluginAsync<{
  brands: BrandBook;
  templates: Record<string, TemplateDefinition>;
  version: string;
}> = async (app, opts) => {
  const document = buildOpenApi(opts.templates, opts.brands, opts.version);
  app.get('/api/v1/openapi.json', async () => document);
};
