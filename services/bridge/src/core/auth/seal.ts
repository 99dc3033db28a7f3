// Session data at rest (decision B2): AES-256-GCM under SESSION_DATA_KEY, `iv.ct+tag` in base64url.
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';

export function sealer(key: Uint8Array) {
  return {
    seal(plain: string): string {
      const iv = randomBytes(12);
      const c = createCipheriv('aes-256-gcm', key, iv);
      const ct = Buffer.concat([c.update(plain, 'utf8'), c.final(), c.getAuthTag()]);
      return `${iv.toString('base64url')}.${ct.toString('base64url')}`;
    },
    open(sealed: string): string {
      const [iv, body] = sealed.split('.');
      const ct = Buffer.from(body ?? '', 'base64url');
      const d = createDecipheriv('aes-256-gcm', key, Buffer.from(iv ?? '', 'base64url'));
      d.setAuthTag(ct.subarray(ct.length - 16));
      return Buffer.concat([d.update(ct.subarray(0, ct.length - 16)), d.final()]).toString('utf8');
    },
  };
}
