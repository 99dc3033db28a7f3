// Decision B118: the casing of error codes. Three casings, one rule each: the bridge's codes are
// spec 2's UPPER_SNAKE_CASE; a refusal a canister (or the standard it implements) names passes
// through under its Candid variant name, PascalCase as spec 1 and ICRC-1 write them; the notification
// service's codes are spec 3's lower_snake_case, and the gateway answers each path in the casing of
// the service behind it. This scan keeps every literal code the services emit inside its rule.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { CANISTER_REFUSALS, ERROR_CODES, errorCode, type ErrorCode } from '../src/core/http/error-codes.ts';
import { MONEY_ERROR_STATUS } from '../src/features/campaigns/errors.ts';
import { errorsPage } from '../scripts/error-codes.ts';
import { readBridgeOpenApi } from '../scripts/openapi.ts';
import { GOVERNANCE_ERROR_STATUS } from '../src/features/governance/errors.ts';
import { REFUSAL_STATUS } from '../src/features/wallet/transfers.ts';

const ROOT = new URL('../../../', import.meta.url).pathname;
const UPPER_SNAKE = /^[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)*$/;
const LOWER_SNAKE = /^[a-z][a-z0-9]*(?:_[a-z0-9]+)*$/;
/** ICRC-1's TransferError variants, which the wallet passes through (decision B75). */
const ICRC1_TRANSFER_ERRORS = [
  'BadFee',
  'BadBurn',
  'InsufficientFunds',
  'TooOld',
  'CreatedInFuture',
  'Duplicate',
  'TemporarilyUnavailable',
  'GenericError',
];
/** The canisters' error variants the bridge answers with (decisions V9, L21, B75). */
const VARIANTS = new Set([
  ...Object.keys(GOVERNANCE_ERROR_STATUS),
  ...Object.keys(MONEY_ERROR_STATUS),
  ...ICRC1_TRANSFER_ERRORS,
]);

function* sources(dir: string): Generator<string> {
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    if (e.isDirectory()) yield* sources(p);
    else if (e.name.endsWith('.ts')) yield p;
  }
}

/** Every literal code in `text`: `new HttpError(status, 'CODE'`, `error: 'CODE'`, `code: 'CODE'`, `error_code: 'CODE'`. */
export function literalCodes(text: string): string[] {
  const out: string[] = [];
  for (const m of text.matchAll(/new HttpError\(\s*[^,()]+,\s*'([^']+)'/g)) out.push(m[1]!);
  // A code starts with a letter; `code: '23505'` is PostgreSQL's, given to a database error.
  for (const m of text.matchAll(/\b(?:error|code|error_code): '([A-Za-z][^' ]*)'/g)) out.push(m[1]!);
  return out;
}

/** The codes of `files` that break the bridge's rule, as `file: CODE`. */
export function bridgeViolations(files: Iterable<[string, string]>): string[] {
  const out: string[] = [];
  for (const [file, text] of files)
    for (const code of literalCodes(text))
      if (!UPPER_SNAKE.test(code) && !VARIANTS.has(code)) out.push(`${file}: ${code}`);
  return out;
}

const read = (path: string) => readFileSync(join(ROOT, path), 'utf8');
const bridgeFiles = () =>
  [...sources(join(ROOT, 'services/bridge/src'))].map(
    (f) => [f.slice(ROOT.length), readFileSync(f, 'utf8')] as [string, string],
  );
/** The members of a string-literal union type named `name` in `text`. */
const unionMembers = (text: string, name: string) =>
  [...(new RegExp(`type ${name} =([^;]+);`).exec(text)?.[1] ?? '').matchAll(/'([^']+)'/g)].map((m) => m[1]!);

describe('the casing of error codes (decision B118)', () => {
  it('decision B118: every code the bridge emits is UPPER_SNAKE_CASE, or the variant name of a canister refusal (spec 1, ICRC-1, decisions V9, L21)', () => {
    const files = bridgeFiles();
    const codes = new Set(files.flatMap(([, t]) => literalCodes(t)));
    assert.ok(codes.size > 40, `the scan sees the codes (${codes.size})`);
    // Spec 2's own codes, as the spec writes them.
    for (const code of ['VALIDATION_ERROR', 'UNAUTHORIZED', 'COPPA_BLOCK', 'EMAIL_EXISTS', 'CIRCUIT_OPEN'])
      assert.ok(codes.has(code), code);
    assert.deepEqual(bridgeViolations(files), []);
    // The wallet's stored refusals: ICRC-1's variants, the campaign canister's LedgerError and its own CANCELLED.
    for (const code of Object.keys(REFUSAL_STATUS)) assert.ok(UPPER_SNAKE.test(code) || VARIANTS.has(code), code);
  });

  it('decision B118: the notification service and the gateway’s /notify answer spec 3’s lower_snake_case; the gateway’s bridge paths the bridge’s casing', () => {
    const service = unionMembers(read('services/notification/src/http/errors.ts'), 'ErrorCode');
    for (const code of [
      'invalid_request',
      'invalid_template_data',
      'render_failed',
      'unauthorized',
      'forbidden',
      'send_failed',
      'service_unavailable',
    ])
      assert.ok(service.includes(code), `spec 3's ${code}`);
    const notify = unionMembers(read('services/gateway/src/notify/errors.ts'), 'NotifyErrorCode');
    assert.ok(notify.length >= 4);
    for (const code of [...service, ...notify]) assert.match(code, LOWER_SNAKE);
    const gateway = literalCodes(read('services/gateway/src/app.ts'));
    assert.ok(gateway.length > 0);
    for (const code of gateway) assert.match(code, UPPER_SNAKE);
  });

  it('the scan finds a code outside the rule (it can fail)', () => {
    const bad: Array<[string, string]> = [
      ['a.ts', "throw new HttpError(409, 'NameTaken', 'x');"],
      ['b.ts', "return reply.code(400).send({ error: 'bad_input', message: 'x' });"],
      ['c.ts', "throw new HttpError(404, 'ProposalNotFound', 'x'); throw new HttpError(400, 'VALIDATION_ERROR', 'x');"],
    ];
    assert.deepEqual(bridgeViolations(bad), ['a.ts: NameTaken', 'b.ts: bad_input']);
  });
});

describe('one registry of the bridge’s error codes (decision B125)', () => {
  const registered = new Set<string>([...Object.keys(ERROR_CODES), ...Object.keys(CANISTER_REFUSALS)]);
  const files = bridgeFiles().filter(
    ([f]) => !f.endsWith('core/http/error-codes.ts') && !f.includes('route-docs') && !f.endsWith('-docs.ts'),
  );

  it('decision B125: every code the bridge answers with is registered, and every registered code is answered somewhere', () => {
    const emitted = new Set(
      files.flatMap(([, t]) => literalCodes(t)).filter((c) => UPPER_SNAKE.test(c) || VARIANTS.has(c)),
    );
    assert.deepEqual(
      [...emitted].filter((c) => !registered.has(c)),
      [],
      'register these in services/bridge/src/core/http/error-codes.ts',
    );
    const text = files.map(([, t]) => t).join('\n');
    // A variant comes from the canister (its Candid type); the bridge's own codes are written in its source.
    assert.deepEqual(
      Object.keys(ERROR_CODES).filter((c) => !text.includes(`'${c}'`)),
      [],
      'registered but never answered: remove them from the registry',
    );
  });

  it('decision B125: every code the OpenAPI document names under an error status is registered with that status', () => {
    const doc = readBridgeOpenApi<{
      paths: Record<string, Record<string, { responses: Record<string, { description?: string }> }>>;
    }>();
    const wrong: string[] = [];
    let named = 0;
    for (const [path, ops] of Object.entries(doc.paths))
      for (const [method, op] of Object.entries(ops))
        for (const [status, r] of Object.entries(op.responses)) {
          if (Number(status) < 400) continue;
          for (const m of (r.description ?? '').matchAll(
            /\b([A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+|[A-Z][a-z]+(?:[A-Z][a-z]*)+)\b/g,
          )) {
            const code = m[1]!;
            if (!registered.has(code)) {
              // Prose in PascalCase (a type name) is not a code; an UPPER_SNAKE word is a setting or a code.
              if (
                UPPER_SNAKE.test(code) &&
                !/_(LIMIT|PER|MAX|MINUTES|HOURS|SECONDS|PERCENT|URL|KEY|SECRET|TOKEN|ORIGINS|DOMAIN|MODEL|BYTES|MINOR|CURRENCY|CHECKOUT|FAILURES)/.test(
                  code,
                )
              )
                wrong.push(`${method.toUpperCase()} ${path} ${status}: ${code} is not registered`);
              continue;
            }
            named++;
            const statuses: readonly number[] = errorCode(code as ErrorCode).status;
            if (!statuses.includes(Number(status)))
              wrong.push(`${method.toUpperCase()} ${path} ${status}: ${code} is registered as ${statuses.join(', ')}`);
          }
        }
    assert.ok(named > 100, `the scan reads the document (${named})`);
    assert.deepEqual(wrong, []);
  });

  it('decision B125: docs/reference/errors.md is generated from the registry and current', () => {
    assert.equal(
      read('docs/reference/errors.md'),
      errorsPage(),
      'docs/reference/errors.md is stale: run `npm run errors:bridge` and commit it',
    );
    for (const code of registered) assert.ok(errorsPage().includes(`\`${code}\``), code);
  });
});
