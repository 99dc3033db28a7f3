// Decisions B20–B28 with a real crash: a bridge child process is killed with SIGKILL at each step boundary
// of the payment webhook (after the commit, after the canister's answer, after the apply), then the
// bridge opens again on the same data directory (PGlite and the embedded canisters' log). The processor's
// retry is a duplicate, the reconciler finishes the upgrade, and the payment is credited exactly once
// (the membership ends this Dec 31, not next year's), in the database and in the canisters alike.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { after, describe, it } from 'node:test';
import { freePort, START_DEV_FLAGS } from '@domdao/test-helpers';
import { signPayload } from '../src/features/payments/signature.ts';
import { OUTBOX_LEASE_MS } from '../src/core/outbox/queue.ts';
import type { FaultPoint } from '../src/core/outbox/types.ts';
import { ADMIN_EMAIL, WEBHOOK_SECRET, bridge, paymentEvent } from './harness.ts';

const child = new URL('./fixtures/crash-child.ts', import.meta.url).pathname;

describe('kill -9 of a real bridge process during the payment webhook (B27)', () => {
  for (const point of ['before-call', 'after-call', 'after-apply'] as FaultPoint[]) {
    it(`SIGKILL at ${point}: after a restart the payment is applied once in both stores`, async () => {
      const h = await bridge();
      after(() => h.close());
      const admin = await h.member(ADMIN_EMAIL);
      const m = await h.member('payer@example.org');
      assert.equal(
        (
          await h.request({
            method: 'POST',
            url: `/api/admin/users/${m.user_id}/kyc`,
            jar: admin.jar,
            payload: { approved: true },
          })
        ).statusCode,
        200,
      );
      const principal = (
        await h.opened.db.selectFrom('users').select('principal').where('id', '=', m.user_id).executeTakeFirstOrThrow()
      ).principal;
      await h.app.close(); // the data directory is handed to the child

      const port = await freePort();
      const proc = spawn(process.execPath, [...START_DEV_FLAGS, child], {
        env: {
          ...h.env,
          PATH: process.env.PATH,
          PORT: String(port),
          LOG_LEVEL: 'warn',
          CRASH_POINT: point,
          CRASH_OP: 'user.upgrade_membership_to_active',
        },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      after(() => proc.kill('SIGKILL'));
      let out = '';
      proc.stdout.on('data', (d) => (out += d));
      proc.stderr.on('data', (d) => (out += d));
      const until = async (marker: string) => {
        for (let i = 0; i < 600 && !out.includes(marker); i++) {
          if (proc.exitCode !== null) throw new Error(`the child exited: ${out}`);
          await new Promise((r) => setTimeout(r, 100));
        }
        assert.ok(out.includes(marker), `the child said ${marker}: ${out}`);
      };
      await until('LISTENING');
      const ev = paymentEvent(m.user_id);
      const raw = JSON.stringify(ev);
      const sign = () => signPayload(WEBHOOK_SECRET, Math.floor(Date.now() / 1000), raw);
      const sent = fetch(`http://127.0.0.1:${port}/api/webhooks/payments`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'payment-signature': sign() },
        body: raw,
      }).catch((e: unknown) => e);
      await until(`PAUSED ${point}`);
      proc.kill('SIGKILL');
      await once(proc, 'exit');
      assert.ok((await sent) instanceof Error, 'the processor got no answer');

      // Restart on the same data, the bridge's clock at the real time the child used, past its lease.
      h.advance(Date.now() + OUTBOX_LEASE_MS + 1 - h.now());
      await h.restart();
      const retry = await h.request({
        method: 'POST',
        url: '/api/webhooks/payments',
        payload: raw,
        origin: null,
        headers: {
          'content-type': 'application/json',
          'payment-signature': signPayload(WEBHOOK_SECRET, Math.floor(h.now() / 1000), raw),
        },
      });
      assert.deepEqual(retry.json(), { received: true, duplicate: true });
      await h.app.outbox.reconcile();
      assert.deepEqual(await h.opened.db.selectFrom('payments').select(['status', 'payment_id']).execute(), [
        { status: 'applied', payment_id: ev.data.object.id },
      ]);
      assert.deepEqual((await h.app.outbox.list({ state: 'pending' })).length, 0);
      const status = await h.opened.canisters.clients.membership.get_membership_status(principal);
      assert.equal(status!.status, 'Active');
      const year = new Date(h.now()).getUTCFullYear();
      assert.equal(
        new Date(Number(status!.expiration_date / 1_000_000n)).toISOString(),
        `${year}-12-31T23:59:59.000Z`,
        'one year credited, once',
      );
    });
  }
});
