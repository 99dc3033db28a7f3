// Card-processor webhook signatures, Stripe's convention (decision B11): header
// `Payment-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256(secret, "<t>.<raw body>")>`, one or more
// v1 entries (secret rotation), compared in constant time, timestamp within the tolerance.
import { createHmac, timingSafeEqual } from 'node:crypto';

export type SignatureProblem = 'missing' | 'malformed' | 'stale' | 'mismatch';

export function signPayload(secret: string, timestamp: number, raw: Buffer | string): string {
  const mac = createHmac('sha256', secret).update(`${timestamp}.`).update(raw).digest('hex');
  return `t=${timestamp},v1=${mac}`;
}

export function verifySignature(
  header: string | undefined,
  raw: Buffer,
  secret: string,
  nowSeconds: number,
  toleranceSeconds: number,
): SignatureProblem | undefined {
  if (!header) return 'missing';
  let t: number | undefined;
  const v1: string[] = [];
  for (const part of header.split(',')) {
    const [k, v] = part.trim().split('=', 2);
    if (k === 't' && v && /^\d{1,12}$/.test(v)) t = Number(v);
    else if (k === 'v1' && v && /^[0-9a-f]{64}$/.test(v)) v1.push(v);
  }
  if (t === undefined || v1.length === 0) return 'malformed';
  if (Math.abs(nowSeconds - t) > toleranceSeconds) return 'stale';
  const expected = Buffer.from(createHmac('sha256', secret).update(`${t}.`).update(raw).digest('hex'));
  return v1.some((s) => timingSafeEqual(Buffer.from(s), expected)) ? undefined : 'mismatch';
}
