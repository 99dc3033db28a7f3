// The yardstick of the bridge session benchmark: the common peer setup, Express 5 with
// express-session and connect-redis (ioredis), serving the same session answer. Bench only.
import express from 'express';
import session from 'express-session';
import { RedisStore } from 'connect-redis';
import { Redis } from 'ioredis';

const redis = new Redis(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379');
const app = express();
app.use(express.json());
app.use(
  session({
    store: new RedisStore({ client: redis, prefix: process.env.PEER_PREFIX ?? 'bench:peer:' }),
    secret: 'peer-bench-secret-0123456789',
    resave: false,
    saveUninitialized: false,
    cookie: { httpOnly: true, sameSite: 'lax', secure: false, maxAge: 24 * 3600 * 1000 },
  }),
);
declare module 'express-session' {
  interface SessionData {
    user: { user_id: string; email: string; roles: string[] };
  }
}
app.get('/health', (_req, res) => void res.json({ status: 'ok' }));
app.post('/auth/login', (req, res) => {
  req.session.regenerate(() => {
    req.session.user = {
      user_id: '6b0f1f3e-2f4e-4c1e-9b7a-1d2e3f4a5b6c',
      email: String(req.body?.email ?? 'ada@example.org'),
      roles: ['member'],
    };
    res.json({ authenticated: true, ...req.session.user });
  });
});
app.get(
  '/auth/session',
  (req, res) =>
    void res.json(req.session.user ? { authenticated: true, ...req.session.user } : { authenticated: false }),
);
app.listen(Number(process.env.PORT ?? 3300), process.env.HOST ?? '127.0.0.1');
