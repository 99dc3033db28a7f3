import { connect, createServer } from 'node:net';

/** A port on 127.0.0.1 that nothing listens on now, for a server a test starts itself. */
export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    });
  });
}

/** Whether host:port accepts a TCP connection now (2 s at most): a server's listener, seen from outside. */
export function acceptsConnection(port: number, host = '127.0.0.1'): Promise<boolean> {
  return new Promise((resolve) => {
    const c = connect({ host, port });
    c.setTimeout(2000);
    c.once('connect', () => {
      c.destroy();
      resolve(true);
    });
    c.once('error', () => resolve(false));
    c.once('timeout', () => {
      c.destroy();
      resolve(false);
    });
  });
}
