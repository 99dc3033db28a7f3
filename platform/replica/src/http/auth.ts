// Decision W13: what the replica checks of every request before it acts on it, as the IC's HTTP
// interface does ("Authentication"): the envelope's content fields, the request id, the signature by
// the sender's key (Ed25519, ECDSA secp256k1 or P-256) through any delegations, the sender being the
// self-authenticating principal of that key (or anonymous, unsigned), and ingress_expiry within the
// IC's window. Every refusal is an HttpRefusal with the status and text the IC answers.
import { createPublicKey, verify, type KeyObject } from 'node:crypto';
import { Principal } from '@icp-sdk/core/principal';
import { domain, hashOfMap, type HashValue } from './hash.ts';

/** The IC's ingress window: at most 5 minutes ahead (MAX_INGRESS_TTL), with a minute of clock skew allowed. */
export const MAX_INGRESS_TTL_NS = 5n * 60n * 1_000_000_000n;
export const PERMITTED_DRIFT_NS = 60n * 1_000_000_000n;
/** The IC's limits on delegations and their targets, nonces and read_state paths. */
export const MAX_DELEGATIONS = 20;
export const MAX_TARGETS = 1_000;
export const MAX_NONCE_BYTES = 32;
export const MAX_PATHS = 1_000;
export const MAX_PATH_LABELS = 127;

const ANONYMOUS = Principal.anonymous().toText();

export class HttpRefusal extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

export type RequestType = 'call' | 'query' | 'read_state';

export interface Authenticated {
  type: RequestType;
  content: Record<string, unknown>;
  requestId: Uint8Array;
  sender: string;
  expiry: bigint;
  /** Canister ids the delegations allow (undefined: any). */
  targets: Set<string> | undefined;
}

const isBytes = (v: unknown): v is Uint8Array => v instanceof Uint8Array;
const isNat = (v: unknown): v is number | bigint =>
  (typeof v === 'number' && Number.isSafeInteger(v) && v >= 0) || (typeof v === 'bigint' && v >= 0n);
const bad = (message: string) => new HttpRefusal(400, message);

function key(der: Uint8Array): KeyObject {
  try {
    const k = createPublicKey({ key: Buffer.from(der), format: 'der', type: 'spki' });
    if (k.asymmetricKeyType === 'ed25519') return k;
    if (k.asymmetricKeyType === 'ec' && ['secp256k1', 'prime256v1'].includes(k.asymmetricKeyDetails?.namedCurve ?? ''))
      return k;
  } catch {
    // not a DER public key this replica knows
  }
  throw bad('Invalid public key: only Ed25519, ECDSA secp256k1 and ECDSA P-256 keys are supported by the test replica');
}

function signedBy(der: Uint8Array, message: Uint8Array, signature: unknown): boolean {
  if (!isBytes(signature)) return false;
  const k = key(der);
  if (k.asymmetricKeyType === 'ed25519') return verify(null, message, k, signature);
  return verify('sha256', message, { key: k, dsaEncoding: 'ieee-p1363' }, signature);
}

/** The fields each request type carries (`arg` may be empty; `nonce` and `sender_info` are optional). */
function checkContent(type: RequestType, c: Record<string, unknown>): void {
  if (!isBytes(c.sender)) throw bad('the content has no sender');
  if (!isNat(c.ingress_expiry)) throw bad('the content has no ingress_expiry');
  if (c.nonce !== undefined && (!isBytes(c.nonce) || c.nonce.length > MAX_NONCE_BYTES))
    throw bad(`the nonce must be a blob of at most ${MAX_NONCE_BYTES} bytes`);
  if (type === 'read_state') {
    if (!Array.isArray(c.paths) || c.paths.length > MAX_PATHS)
      throw bad(`paths must be a list of at most ${MAX_PATHS} paths`);
    for (const p of c.paths)
      if (!Array.isArray(p) || p.length > MAX_PATH_LABELS || !p.every(isBytes))
        throw bad(`a path is a list of at most ${MAX_PATH_LABELS} blobs`);
    return;
  }
  if (!isBytes(c.canister_id)) throw bad('the content has no canister_id');
  if (typeof c.method_name !== 'string') throw bad('the content has no method_name');
  if (!isBytes(c.arg)) throw bad('the content has no arg');
}

/** A request id as the IC computes it: the representation-independent hash of the content. */
export const requestIdOf = (content: Record<string, unknown>) => hashOfMap(content as Record<string, HashValue>);

/**
 * The checked request, or an HttpRefusal: `nowNs` is the replica's wall clock (decision W15), against
 * which ingress_expiry and delegation expirations are read.
 */
export function authenticate(envelope: unknown, type: RequestType, nowNs: bigint): Authenticated {
  if (typeof envelope !== 'object' || envelope === null || Array.isArray(envelope))
    throw bad('the body is not a CBOR map');
  const e = envelope as Record<string, unknown>;
  const content = e.content as Record<string, unknown>;
  if (typeof content !== 'object' || content === null || Array.isArray(content))
    throw bad('the envelope has no content map');
  if (content.request_type !== type) throw bad(`the request_type must be ${type} at this endpoint`);
  checkContent(type, content);
  const expiry = BigInt(content.ingress_expiry as number | bigint);
  const min = nowNs;
  const max = nowNs + MAX_INGRESS_TTL_NS + PERMITTED_DRIFT_NS;
  if (expiry < min || expiry > max)
    throw bad(
      `Invalid request expiry: Specified ingress_expiry not within expected range: Minimum allowed expiry: ${min}, Maximum allowed expiry: ${max}, Provided expiry: ${expiry}`,
    );
  const requestId = requestIdOf(content);
  const sender = Principal.fromUint8Array(content.sender as Uint8Array).toText();
  const hex = Buffer.from(requestId).toString('hex');
  if (sender === ANONYMOUS) {
    if (e.sender_pubkey !== undefined || e.sender_sig !== undefined || e.sender_delegation !== undefined)
      throw bad(
        `Failed to authenticate request 0x${hex}: an anonymous request carries no key, signature or delegation`,
      );
    return { type, content, requestId, sender, expiry, targets: undefined };
  }
  if (!isBytes(e.sender_pubkey) || !isBytes(e.sender_sig))
    throw bad(`Failed to authenticate request 0x${hex}: missing signature or public key of sender ${sender}`);
  if (Principal.selfAuthenticating(e.sender_pubkey).toText() !== sender)
    throw bad(
      `Failed to authenticate request 0x${hex}: the sender ${sender} is not the self-authenticating principal of the request's public key`,
    );
  let signer = e.sender_pubkey;
  let targets: Set<string> | undefined;
  const delegations = e.sender_delegation ?? [];
  if (!Array.isArray(delegations) || delegations.length > MAX_DELEGATIONS)
    throw bad(`Failed to authenticate request 0x${hex}: at most ${MAX_DELEGATIONS} delegations`);
  for (const [i, signed] of delegations.entries()) {
    const d = (signed as { delegation?: Record<string, unknown> }).delegation;
    if (!d || !isBytes(d.pubkey) || !isNat(d.expiration))
      throw bad(`Failed to authenticate request 0x${hex}: delegation ${i} is malformed`);
    const message = Buffer.concat([domain('ic-request-auth-delegation'), hashOfMap(d as Record<string, HashValue>)]);
    if (!signedBy(signer, message, (signed as { signature?: unknown }).signature))
      throw bad(`Failed to authenticate request 0x${hex}: Invalid delegation: invalid signature of delegation ${i}`);
    if (BigInt(d.expiration) < nowNs)
      throw bad(`Failed to authenticate request 0x${hex}: Invalid delegation: delegation ${i} has expired`);
    if (d.targets !== undefined) {
      if (!Array.isArray(d.targets) || d.targets.length > MAX_TARGETS || !d.targets.every(isBytes))
        throw bad(`Failed to authenticate request 0x${hex}: delegation ${i} has more than ${MAX_TARGETS} targets`);
      const these = new Set(d.targets.map((t) => Principal.fromUint8Array(t).toText()));
      targets = targets ? new Set([...targets].filter((t) => these.has(t))) : these;
    }
    signer = d.pubkey;
  }
  if (!signedBy(signer, Buffer.concat([domain('ic-request'), requestId]), e.sender_sig))
    throw bad(`Failed to authenticate request 0x${hex}: Invalid signature`);
  if (
    type !== 'read_state' &&
    targets &&
    !targets.has(Principal.fromUint8Array(content.canister_id as Uint8Array).toText())
  )
    throw bad(`Failed to authenticate request 0x${hex}: the delegation does not allow calls to this canister`);
  return { type, content, requestId, sender, expiry, targets };
}
