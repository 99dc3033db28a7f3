// Decision D42: the send's log line is assembled from pino's pieces when its values are plain ASCII;
// it must be the line pino itself writes for the same object, whatever the values.
import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import type { FastifyBaseLogger } from 'fastify';
import { createLogger } from '@domdao/service-kit';
import { logSent } from '../src/routes/send.ts';
import type { OutboundMessage } from '../src/rendering/compose.ts';
import { makeService, validBody } from './harness.ts';

function capture() {
  const lines: string[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _enc, done) {
      lines.push(chunk.toString('utf8'));
      done();
    },
  });
  const { logger } = createLogger('info', 'notification', '1.5.0', stream);
  return { lines, logger };
}

const sameTime = (line: string) => line.replace(/"time":\d+/, '"time":0');

describe('decision D42: the send log line', () => {
  const value = fc.oneof(
    fc.string({ maxLength: 50 }),
    fc.string({
      unit: fc.constantFrom('a', '"', '\\', ' ', '~', '\x1f', '\x7f', 'é', '\u2028', '\ud800', '😀', '\n'),
      maxLength: 12,
    }),
    fc.uuid().map((u) => `stub_${u}`),
    fc.constantFrom('event.ics', 'welcome', 'notification-digest', 'dao', 'product', ''),
  );
  it('is byte for byte what pino writes for the same object, plain values or not, stub or not', () => {
    fc.assert(
      fc.property(
        fc.boolean(),
        value,
        value,
        value,
        fc.array(value, { maxLength: 3 }),
        fc.uuid(),
        (stub, messageId, type, brand, names, requestId) => {
          const ours = capture();
          const reference = capture();
          const message = {
            type,
            brand,
            attachments: names.map((filename) => ({ filename, content: 'QQ==' })),
          } as unknown as OutboundMessage;
          // The request's logger made (Fastify's route) and not made (the front door, decision D45).
          logSent({ id: requestId, log: ours.logger.child({ request_id: requestId }) }, stub, messageId, message);
          let made = 0;
          logSent(
            {
              id: requestId,
              parentLog: ours.logger,
              get log() {
                made++;
                return ours.logger.child({ request_id: requestId }) as FastifyBaseLogger;
              },
            },
            stub,
            messageId,
            message,
          );
          // D45: a plain line is written without making the request's logger.
          assert.equal(
            made,
            [messageId, type, brand, ...names].every((v) => /^[\x20\x21\x23-\x5b\x5d-\x7e]*$/.test(v)) ? 0 : 1,
          );
          const line = (l: { info(o: object, m: string): void }) =>
            l.info(
              {
                event: stub ? 'email.stub_send' : 'email.sent',
                message_id: messageId,
                template: type,
                brand,
                attachment_count: names.length,
                attachment_filenames: names,
              },
              stub ? 'stub mode: email not delivered' : 'email sent',
            );
          line(reference.logger.child({ request_id: requestId }));
          line(reference.logger.child({ request_id: requestId }));
          assert.deepEqual(ours.lines.map(sameTime), reference.lines.map(sameTime));
        },
      ),
      { numRuns: 5000 },
    );
  });
  it('a level above info writes nothing', () => {
    const lines: string[] = [];
    const { logger } = createLogger(
      'warn',
      'notification',
      '1.5.0',
      new Writable({ write: (c: Buffer, _e, done) => (lines.push(c.toString()), done()) }),
    );
    const message = { type: 'welcome', brand: 'dao', attachments: [] } as unknown as OutboundMessage;
    logSent({ id: 'r', log: logger.child({ request_id: 'r' }) }, true, 'stub_x', message);
    let made = 0;
    logSent(
      {
        id: 'r',
        parentLog: logger,
        get log() {
          made++;
          return logger.child({ request_id: 'r' }) as FastifyBaseLogger;
        },
      },
      true,
      'stub_x',
      message,
    );
    assert.deepEqual(lines, []);
    assert.equal(made, 0);
  });

  it('over HTTP: one email.stub_send line per send with the request id, template, brand and file names', async () => {
    const svc = await makeService();
    try {
      const res = await svc.send(validBody('event-reminder'));
      assert.equal(res.statusCode, 200);
      const [line, ...more] = svc.logs.events('email.stub_send');
      assert.equal(more.length, 0);
      assert.equal(line!.request_id, res.json().request_id);
      assert.equal(line!.message_id, res.json().id);
      assert.deepEqual(
        [line!.template, line!.brand, line!.attachment_count, line!.attachment_filenames, line!.level, line!.service],
        ['event-reminder', 'dao', 1, ['event.ics'], 'info', 'notification'],
      );
    } finally {
      await svc.close();
    }
  });
});
