// Decision B55: Ajv (as Fastify configures it, coercing query text) lets `Infinity`, `-Infinity` and
// `1e400` through an integer schema with minimum and maximum, and JSON.parse reads `1e999` in a body
// as Infinity; such a number reached PostgreSQL ("invalid input syntax for type bigint") as a 500.
// After validation, every route's query, path parameters and body are checked for a number that is
// not finite: 400 VALIDATION_ERROR, or the route's attached validation error where it answers those
// itself (the AI scope's 422, decision A3).
import type { FastifyRequest } from 'fastify';
import { HttpError } from './errors.ts';

/** The path of the first non-finite number in a value (walked without recursion: bodies can nest deeply). */
export function nonFiniteNumberPath(value: unknown): string | undefined {
  const stack: Array<[unknown, string]> = [[value, '']];
  while (stack.length > 0) {
    const [v, path] = stack.pop()!;
    if (typeof v === 'number' && !Number.isFinite(v)) return path || '/';
    if (v && typeof v === 'object') for (const [k, x] of Object.entries(v)) stack.push([x, `${path}/${k}`]);
  }
  return undefined;
}

export async function refuseNonFiniteNumbers(req: FastifyRequest): Promise<void> {
  // A body is looked at only where the route declares one: a route that ignores its body ignores it whole.
  const body = req.routeOptions.schema?.body ? req.body : undefined;
  for (const [context, value] of [
    ['querystring', req.query],
    ['params', req.params],
    ['body', body],
  ] as const) {
    const path = nonFiniteNumberPath(value);
    if (path === undefined) continue;
    const message = `${context}${path} must be a finite number`;
    if (req.routeOptions.attachValidation) {
      if (!req.validationError)
        req.validationError = Object.assign(new Error(message), { validation: [], validationContext: context });
      return;
    }
    throw new HttpError(400, 'VALIDATION_ERROR', message);
  }
}
