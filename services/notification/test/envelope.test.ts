// Spec 3 "Send request" envelope fields and send flow step 3: 400 invalid_request with details[].
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { addressProblem, fullAddressProblem } from '../src/envelope/email-address.ts';
import { DAO, makeService, PRODUCT, validBody } from './harness.ts';

let svc: Awaited<ReturnType<typeof makeService>>;
before(async () => (svc = await makeService()));
after(() => svc.close());

async function expectInvalid(body: unknown, field: string, headers: Record<string, string> = {}) {
  const res = await svc.send(body, headers);
  assert.equal(res.statusCode, 400, res.body);
  const json = res.json();
  assert.equal(json.error, 'invalid_request');
  assert.ok(json.request_id);
  assert.ok(Array.isArray(json.details), 'details[] present');
  assert.ok(
    json.details.some((d: { field: string }) => d.field === field),
    `expected a detail for ${field}, got ${JSON.stringify(json.details)}`,
  );
  for (const d of json.details) {
    assert.equal(typeof d.field, 'string');
    assert.equal(typeof d.message, 'string');
  }
  return json.details as Array<{ field: string; message: string }>;
}

describe('body', () => {
  it('malformed JSON is 400 invalid_request', async () => {
    await expectInvalid('{"type": "welcome",', 'body');
  });
  for (const [why, body] of [
    ['an array', '[]'],
    ['a string', '"welcome"'],
    ['null', 'null'],
    ['a number', '42'],
  ]) {
    it(`${why} instead of an object is 400 invalid_request`, async () => {
      await expectInvalid(body, 'body');
    });
  }
  it('an empty body is 400 invalid_request', async () => {
    await expectInvalid('', 'body');
  });
  it('a non-JSON content type is 415 unsupported_media_type', async () => {
    const res = await svc.send('type=welcome', { 'content-type': 'application/x-www-form-urlencoded' });
    assert.equal(res.statusCode, 415);
    assert.equal(res.json().error, 'unsupported_media_type');
  });
  for (const type of ['text/plain', 'text/plain; charset=utf-8', 'TEXT/PLAIN']) {
    it(`decision D3: a ${type} body is 415 unsupported_media_type, not 400`, async () => {
      const res = await svc.send(JSON.stringify(validBody('welcome')), { 'content-type': type });
      assert.equal(res.statusCode, 415);
      assert.equal(res.json().error, 'unsupported_media_type');
      assert.deepEqual(res.json().details, [{ field: 'Content-Type', message: 'must be application/json' }]);
    });
  }
  it('prototype-pollution keys are refused', async () => {
    const res = await svc.send('{"__proto__": {"admin": true}, "type": "welcome"}');
    assert.equal(res.statusCode, 400);
    assert.equal(res.json().error, 'invalid_request');
  });
  it('every problem is reported at once', async () => {
    const details = await expectInvalid({ type: 'nope', to: 'x', domain: 'y', attachments: 'z' }, 'type');
    assert.deepEqual(details.map((d) => d.field).sort(), ['attachments', 'data', 'domain', 'to', 'type']);
  });
  it('unknown top-level fields are ignored', async () => {
    const res = await svc.send({ ...validBody('welcome'), priority: 'high', cc: 'x@example.com' });
    assert.equal(res.statusCode, 200);
  });
});

describe('type', () => {
  it('missing is invalid_request', async () => {
    await expectInvalid({ ...validBody('welcome'), type: undefined }, 'type');
  });
  it('unknown is invalid_request and lists the 14 types', async () => {
    const [d] = await expectInvalid({ ...validBody('welcome'), type: 'newsletter' }, 'type');
    assert.match(d!.message, /welcome/);
    assert.match(d!.message, /notification-digest/);
  });
  it('inherited property names are not types', async () => {
    await expectInvalid({ ...validBody('welcome'), type: 'constructor' }, 'type');
  });
  it('non-string is invalid_request', async () => {
    await expectInvalid({ ...validBody('welcome'), type: 7 }, 'type');
  });
});

describe('to: one bare RFC 5322 addr-spec', () => {
  const accepted = [
    'ada@example.com',
    'ada.lovelace+dao@mail.example.co.uk',
    "o'brien@example.ie",
    'x_y-z!#$%&*/=?^`{|}~@example.com',
    'jörg@bücher.example',
    '用户@例子.广告',
    'ada@xn--bcher-kva.example',
    `${'a'.repeat(64)}@example.com`,
    `a@${'b'.repeat(63)}.${'c'.repeat(63)}.${'d'.repeat(63)}.${'e'.repeat(47)}.com`.slice(0, 254),
  ];
  for (const to of accepted) {
    it(`accepts ${to.length > 40 ? `${to.slice(0, 37)}… (${Buffer.byteLength(to)} octets)` : to}`, async () => {
      const res = await svc.send(validBody('welcome', { to }));
      assert.equal(res.statusCode, 200, res.body);
    });
  }
  const refused: Array<[string, unknown]> = [
    ['a display name', 'Ada <ada@example.com>'],
    ['angle brackets', '<ada@example.com>'],
    ['a quoted local part', '"ada lovelace"@example.com'],
    ['a comment', 'ada(comment)@example.com'],
    ['a list', 'ada@example.com,eve@example.com'],
    ['a semicolon list', 'ada@example.com;eve@example.com'],
    ['CRLF header injection', 'ada@example.com\r\nBcc: eve@example.com'],
    ['a bare LF', 'ada@example.com\nBcc: eve@example.com'],
    ['a space', 'ada @example.com'],
    ['a tab', 'ada\t@example.com'],
    ['a zero-width space', 'ada\u200b@example.com'],
    ['a bidi override', 'ada\u202e@example.com'],
    ['no @', 'ada.example.com'],
    ['two @', 'ada@eve@example.com'],
    ['an empty local part', '@example.com'],
    ['an empty domain', 'ada@'],
    ['a dotless domain', 'ada@localhost'],
    ['a domain literal', 'ada@[127.0.0.1]'],
    ['an all-numeric TLD', 'ada@example.123'],
    ['a leading dot', '.ada@example.com'],
    ['a trailing dot in the local part', 'ada.@example.com'],
    ['consecutive dots', 'ada..lovelace@example.com'],
    ['a trailing dot in the domain', 'ada@example.com.'],
    ['a label starting with a hyphen', 'ada@-example.com'],
    ['a 64-octet label', `ada@${'a'.repeat(64)}.com`],
    ['a 65-octet local part', `${'a'.repeat(65)}@example.com`],
    ['a 33-character non-ASCII local part over 64 octets', `${'ü'.repeat(33)}@example.com`],
    ['an address over 254 octets', `a@${'b'.repeat(62)}.${'c'.repeat(62)}.${'d'.repeat(62)}.${'e'.repeat(62)}.com`],
    ['a backslash', 'ada\\@example.com'],
    ['an empty string', ''],
    ['a number', 42],
    ['an array', ['ada@example.com']],
    ['a huge string', `${'a'.repeat(100_000)}@example.com`],
  ];
  for (const [why, to] of refused) {
    it(`refuses ${why}`, async () => {
      await expectInvalid(validBody('welcome', { to: to as string }), 'to');
    });
  }
  it('missing is invalid_request', async () => {
    await expectInvalid({ ...validBody('welcome'), to: undefined }, 'to');
  });
  for (const to of [
    'ada@xn--zz.com',
    'ada@xn--a.com',
    'ada@XN--ZZ.com',
    'ada@mail.xn--zz.com',
    'ada@example.xn--a',
    'ada@xn--.com',
    'jörg@xn--zz.com',
  ]) {
    it(`decision D12: broken punycode ${to} is refused (one rule for the ASCII fast path and the full path)`, async () => {
      const details = await expectInvalid(validBody('welcome', { to }), 'to');
      assert.deepEqual(details, [{ field: 'to', message: 'domain is not a valid domain name' }]);
    });
  }
  it('decision D12: the ASCII fast path and the full path give the same answer on every address above', () => {
    for (const to of [
      ...accepted,
      ...refused.map(([, v]) => v),
      'ada@xn--zz.com',
      'ada@xn--a.com',
      'ada@xn--p1ai.xn--p1ai',
      'ada@ab--cd.com',
    ]) {
      if (typeof to !== 'string') continue;
      assert.equal(addressProblem(to), fullAddressProblem(to), to.slice(0, 80));
    }
  });
});

describe('domain', () => {
  it('the product domain selects the product brand', async () => {
    assert.equal((await svc.send(validBody('welcome', { domain: PRODUCT }))).statusCode, 200);
  });
  for (const [why, domain] of [
    ['unknown', 'evil.example'],
    ['different case (values are exact)', DAO.toUpperCase()],
    ['with a subdomain', `notifications.${DAO}`],
    ['missing', undefined],
    ['not a string', 1],
  ]) {
    it(`${why} is invalid_request (brand never inferred)`, async () => {
      await expectInvalid({ ...validBody('welcome'), domain }, 'domain');
    });
  }
  it('the brand is not inferred from the recipient: a DAO-domain recipient still needs domain', async () => {
    await expectInvalid({ ...validBody('welcome', { to: `member@${DAO}` }), domain: undefined }, 'domain');
  });
  for (const type of ['membership-confirm', 'renewal-receipt', 'treasury-milestone'] as const) {
    it(`DAO-only ${type} with the product domain is invalid_request (decision D4)`, async () => {
      const [d] = await expectInvalid(validBody(type, { domain: PRODUCT }), 'domain');
      assert.match(d!.message, /DAO brand/);
      assert.equal((await svc.send(validBody(type, { domain: DAO }))).statusCode, 200);
    });
  }
});

describe('data presence (decision D5)', () => {
  it('missing data is invalid_request', async () => {
    await expectInvalid({ ...validBody('welcome'), data: undefined }, 'data');
  });
  for (const data of [null, [], 'x', 3]) {
    it(`data ${JSON.stringify(data)} is invalid_request`, async () => {
      await expectInvalid({ ...validBody('welcome'), data }, 'data');
    });
  }
});

describe('attachments', () => {
  const file = (over: Record<string, unknown> = {}) => ({
    filename: 'report.pdf',
    content: Buffer.from('%PDF-1.7 test').toString('base64'),
    ...over,
  });
  const withFiles = (attachments: unknown) => ({ ...validBody('welcome'), attachments });

  it('up to 10 are accepted', async () => {
    const res = await svc.send(withFiles(Array.from({ length: 10 }, (_, i) => file({ filename: `f${i}.txt` }))));
    assert.equal(res.statusCode, 200, res.body);
  });
  it('11 are invalid_request', async () => {
    await expectInvalid(withFiles(Array.from({ length: 11 }, () => file())), 'attachments');
  });
  it('not an array is invalid_request', async () => {
    await expectInvalid(withFiles({ filename: 'a' }), 'attachments');
  });
  it('an item that is not an object is invalid_request', async () => {
    await expectInvalid(withFiles(['x']), 'attachments[0]');
  });

  for (const [why, filename] of [
    ['path traversal', '../../etc/passwd'],
    ['a slash', 'dir/report.pdf'],
    ['a backslash', 'C:\\temp\\report.pdf'],
    ['only dots', '..'],
    ['one dot', '.'],
    ['CRLF header injection', 'a.txt\r\nContent-Type: text/html'],
    ['a NUL byte', 'a\u0000.txt'],
    ['DEL', 'a\u007f.txt'],
    ['a right-to-left override disguising the extension', 'invoice\u202Efdp.exe'],
    ['a zero-width joiner', 'a\u200d.txt'],
    ['leading white space', ' a.txt'],
    ['empty', ''],
    ['over 255 octets', `${'é'.repeat(128)}.txt`],
    ['not a string', 5],
    ['missing', undefined],
  ]) {
    it(`filename with ${why} is invalid_request`, async () => {
      await expectInvalid(withFiles([file({ filename })]), 'attachments[0].filename');
    });
  }
  const encoded = (charset: string, text: string) => `=?${charset}?B?${Buffer.from(text).toString('base64')}?=`;
  for (const [why, filename] of [
    ['../ inside a base64 encoded word', encoded('utf-8', '../../etc/passwd')],
    ['CR/LF inside a base64 encoded word', encoded('utf-8', 'a.txt\r\nBcc: eve@example.com')],
    ['U+202E inside a base64 encoded word', encoded('UTF-8', 'invoice\u202Efdp.exe')],
    ['a Q-encoded word carrying ../', '=?utf-8?Q?=2E=2E=2Fpasswd?='],
    ['an encoded word inside a longer name', `report ${encoded('utf-8', 'x')}.pdf`],
    ['a harmless-looking encoded word', encoded('iso-8859-1', 'resume.pdf')],
  ]) {
    it(`decision D31: a filename with ${why} (RFC 2047) is invalid_request`, async () => {
      const details = await expectInvalid(withFiles([file({ filename })]), 'attachments[0].filename');
      assert.match(details.find((d) => d.field === 'attachments[0].filename')!.message, /RFC 2047 encoded word/);
    });
  }
  it('decision D31: names that only look a little like encoded words are accepted', async () => {
    for (const filename of ['a=?b.txt', 'why?=.txt', 'x=?y?z.pdf']) {
      assert.equal((await svc.send(withFiles([file({ filename })]))).statusCode, 200, filename);
    }
  });
  it('ordinary international filenames are accepted', async () => {
    assert.equal((await svc.send(withFiles([file({ filename: 'Ünïcode – résumé (1).pdf' })]))).statusCode, 200);
  });

  for (const [why, content] of [
    ['not base64', 'not base64!'],
    ['line-wrapped base64', `${'QUFB'.repeat(19)}\r\n${'QUFB'.repeat(2)}`],
    ['missing padding', 'QUE'],
    ['non-canonical padding bits', 'QR=='],
    ['a data URL', 'data:application/pdf;base64,QUFB'],
    ['base64url alphabet', 'a-_b'],
    ['empty', ''],
    ['not a string', 12],
  ]) {
    it(`content that is ${why} is invalid_request`, async () => {
      await expectInvalid(withFiles([file({ content })]), 'attachments[0].content');
    });
  }
  it('content_type must be printable ASCII (no CRLF)', async () => {
    await expectInvalid(
      withFiles([file({ content_type: 'text/plain\r\nBcc: eve@example.com' })]),
      'attachments[0].content_type',
    );
    await expectInvalid(withFiles([file({ content_type: 'text/plain; name=ü' })]), 'attachments[0].content_type');
    await expectInvalid(withFiles([file({ content_type: '' })]), 'attachments[0].content_type');
  });
  for (const type of [
    'text/html; name=evil.exe',
    'application/pdf; name="r.pdf"',
    'text/plain; filename=a.exe',
    'multipart/mixed; boundary=x',
    'text/plain; charset=utf-8; name=a.exe',
    'text/html;',
    'texthtml',
    'text/',
    '/html',
    'text/html extra',
  ]) {
    it(`decision D31: content_type ${JSON.stringify(type)} is invalid_request (type/subtype, charset the only parameter)`, async () => {
      const details = await expectInvalid(withFiles([file({ content_type: type })]), 'attachments[0].content_type');
      assert.deepEqual(details, [
        {
          field: 'attachments[0].content_type',
          message: 'must be type/subtype, optionally with a charset parameter (no other parameters)',
        },
      ]);
    });
  }
  for (const type of [
    'application/pdf',
    'text/csv',
    'TEXT/Plain',
    'text/plain; charset=utf-8',
    'text/plain;charset="ISO-8859-1"',
    'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
    'image/svg+xml',
  ]) {
    it(`decision D31: content_type ${JSON.stringify(type)} is accepted`, async () => {
      assert.equal((await svc.send(withFiles([file({ content_type: type })]))).statusCode, 200);
    });
  }

  it('exactly 25 MiB decoded is accepted; 25 MiB + 1 byte is invalid_request', async () => {
    const max = Buffer.alloc(25 * 1024 * 1024, 7).toString('base64');
    assert.equal((await svc.send(withFiles([file({ content: max })]))).statusCode, 200);
    const over = Buffer.alloc(25 * 1024 * 1024 + 1, 7).toString('base64');
    const [d] = await expectInvalid(withFiles([file({ content: over })]), 'attachments[0].content');
    assert.match(d!.message, /26214400/);
  });
});
