// Decisions B100, B101: the database belongs to one canister set, and embedded canisters to one live
// bridge; checked before the canisters are opened or anything is written for them. A refusal is a
// fatal log line and an audit row.
import { EMBEDDED_CANISTER_IDS } from '@domdao/canisters';
import type { ServiceLogger } from '@domdao/service-kit';
import type { BridgeConfig } from '../config.ts';
import { AuditLog, SYSTEM } from '../core/audit/log.ts';
import { bindCanisterSet, type Binding } from '../core/canister-set/binding.ts';
import { CanisterSetRefused } from '../core/canister-set/refused.ts';
import { embeddedCanisterSet, icCanisterSet, type CanisterSet } from '../core/canister-set/identity.ts';
import type { OpenedDatabase } from '../core/db/connect.ts';

export interface BoundSet {
  set: CanisterSet;
  binding: Binding;
  /** The canisters are opened after the lease is taken; a lease lost later (or already) closes them. */
  stopOnLoss: (stop: () => void) => void;
  /** A start that fails from here on does not keep the database's lease (decision B101). */
  orRelease: <T>(p: Promise<T>) => Promise<T>;
}

export async function bindBridgeCanisterSet(
  config: BridgeConfig,
  env: NodeJS.ProcessEnv,
  database: OpenedDatabase,
  log: ServiceLogger,
  now: () => number,
  onLost: (err: CanisterSetRefused) => void,
  keyFingerprints?: Record<string, string>,
): Promise<BoundSet> {
  const refused = async (err: CanisterSetRefused, set: CanisterSet | undefined) => {
    log.logger.fatal(
      {
        event: err.reason === 'lease_lost' ? 'canister_set.lease_lost' : 'bridge.start_refused',
        reason: err.reason,
        err: err.message,
      },
      err.message,
    );
    const detail = { reason: err.reason, mode: set?.mode ?? 'embedded', canister_set: set?.id ?? null };
    await new AuditLog({ db: database.db, log: log.logger, now }).record(undefined, {
      event: 'canister_set.refused',
      actor: SYSTEM,
      outcome: 'denied',
      detail,
    });
    log.flush();
  };
  let set: CanisterSet | undefined;
  let binding: Binding;
  let lost = false;
  let stopCanisters: (() => void) | undefined;
  try {
    set = env.IC_GOVERNANCE_CANISTER_ID
      ? icCanisterSet(env)
      : embeddedCanisterSet(config.DATA_DIR, EMBEDDED_CANISTER_IDS);
    const bound = set;
    binding = await bindCanisterSet({
      db: database.db,
      kind: database.kind,
      url: config.DATABASE_URL,
      set,
      dataDir: config.DATA_DIR,
      now,
      log: log.logger,
      ...(keyFingerprints && { keyFingerprints }),
      // Another bridge holds the embedded canisters now: this one stops using them, and /health says so.
      onLeaseLost: (err) => {
        lost = true;
        onLost(err);
        stopCanisters?.();
        void refused(err, bound);
      },
    });
  } catch (e) {
    if (e instanceof CanisterSetRefused) await refused(e, set);
    await database.close();
    throw e;
  }
  const orRelease = <T>(p: Promise<T>): Promise<T> =>
    p.catch(async (e: unknown) => {
      await binding.release();
      throw e;
    });
  const stopOnLoss = (stop: () => void) => {
    stopCanisters = stop;
    if (lost) stop(); // lost while they were opening
  };
  return { set, binding, stopOnLoss, orRelease };
}
