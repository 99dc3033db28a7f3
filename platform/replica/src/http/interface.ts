// Decision W13: the IC's public HTTP interface in front of the test replica (interface specification,
// "HTTPS Interface"): GET /api/v2/status; POST /api/v2/canister/<ecid>/call (202, then poll
// read_state) and /api/v3|v4/canister/<ecid>/call (200 with a certificate of the call's status);
// /api/v2|v3/canister/<ecid>/query (the answer signed by the node key); /api/v2|v3/canister/<ecid>/read_state
// and /api/v2|v3/subnet/<esid>/read_state. Bodies are CBOR; every request is authenticated (auth.ts)
// before anything runs; a request id already received is not run again (the IC's replay protection).
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { sign, type KeyObject } from 'node:crypto';
import { Cbor } from '@icp-sdk/core/agent';
import { IDL } from '@icp-sdk/core/candid';
import { Principal } from '@icp-sdk/core/principal';
import { managementTypes } from '@domdao/canisters/management';
import type { Result } from '../host/index.ts';
import { authenticate, HttpRefusal, type Authenticated, type RequestType } from './auth.ts';
import { domain, hashOfMap, leb128, type HashValue } from './hash.ts';
import { readState, statusNode, type CallStatus, type StateView } from './read-state.ts';
import { labels, put, type StateNode } from './state-tree.ts';

/** Request bodies past this are refused with 413 (the IC's ingress messages are at most 2 MiB, plus the envelope). */
export const MAX_BODY_BYTES = 4 * 1024 * 1024;
/** A synchronous call still running after this answers 202, and the caller polls (as on the IC). */
export const SYNC_CALL_TIMEOUT_MS = 10_000;
const MANAGEMENT = 'aaaaa-aa';

export interface ReplicaBackend {
  /** The wall clock in nanoseconds: ingress expiry, certificates and signatures are read against it (decision W15). */
  wallNs(): bigint;
  rootKey: Uint8Array;
  nodeKey: KeyObject;
  view(): StateView;
  certify(tree: StateNode): Uint8Array;
  query(sender: string, canister: string, method: string, arg: Uint8Array): Promise<Result>;
  /** Runs an ingress call once per request id (to its canister_id) at effective canister `ecid`; answers its status once the call has ended. */
  call(requestId: string, a: Authenticated, ecid: string): Promise<CallStatus>;
  /** The status of a request id already received, if any. */
  known(requestId: string): CallStatus | undefined;
  /** Where a call still running is (a duplicate submission waits for it). */
  running(requestId: string): Promise<CallStatus> | undefined;
}

const cbor = (res: ServerResponse, status: number, body?: unknown) => {
  res.writeHead(status, body === undefined ? {} : { 'content-type': 'application/cbor' });
  res.end(body === undefined ? undefined : Buffer.from(Cbor.encode(body)));
};

async function readBody(req: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > MAX_BODY_BYTES) throw new HttpRefusal(413, `the request body is larger than ${MAX_BODY_BYTES} bytes`);
    chunks.push(chunk);
  }
  return Buffer.concat(chunks);
}

function principalOf(text: string, what: string): string {
  try {
    return Principal.fromText(text).toText();
  } catch {
    throw new HttpRefusal(400, `${what} ${text} is not a principal`);
  }
}

export function icHttpInterface(backend: ReplicaBackend): {
  server: Server;
  handle(req: IncomingMessage, res: ServerResponse): Promise<void>;
} {
  const certifyStatus = (requestId: Uint8Array, s: CallStatus) => {
    const root = labels();
    put(root, ['time'], leb128(backend.wallNs()));
    put(root, ['request_status', requestId], statusNode(s));
    return backend.certify(root);
  };

  async function authenticated(req: IncomingMessage, type: RequestType): Promise<Authenticated> {
    const body = await readBody(req);
    let envelope: unknown;
    try {
      envelope = Cbor.decode(body);
    } catch {
      throw new HttpRefusal(400, 'the body is not CBOR');
    }
    return authenticate(envelope, type, backend.wallNs());
  }

  /**
   * The effective canister id rules (interface specification, "Effective canister id"): a call goes to the
   * canister in the URL; a management call (decision W18) to the canister its argument names (`canister_id`),
   * and provisional_create_canister_with_cycles (and raw_rand) at any effective id.
   * Queries to the management canister are refused, as on the IC.
   */
  function targetOf(a: Authenticated, ecid: string, type: 'call' | 'query'): string {
    const canister = Principal.fromUint8Array(a.content.canister_id as Uint8Array).toText();
    if (canister === MANAGEMENT) {
      if (type === 'query') throw new HttpRefusal(400, 'the management canister has no query method over HTTP');
      const method = a.content.method_name as string;
      const arg = Uint8Array.from(a.content.arg as Uint8Array); // a copy: the decoder reads from the buffer's start
      const field = (type: IDL.Type, name: string): Principal | undefined => {
        try {
          const [v] = IDL.decode([type], arg) as Array<Record<string, unknown>>;
          const x = v![name];
          return Array.isArray(x) ? (x[0] as Principal | undefined) : (x as Principal);
        } catch {
          throw new HttpRefusal(400, `the argument of the management canister's ${method} does not decode`);
        }
      };
      if (method === 'provisional_create_canister_with_cycles' || method === 'raw_rand') return canister;
      const named = field(managementTypes.canisterIdArg, 'canister_id')!.toText();
      if (named !== ecid)
        throw new HttpRefusal(400, `Specified CanisterId ${named} does not match effective canister id in URL ${ecid}`);
      return canister;
    }
    if (canister !== ecid)
      throw new HttpRefusal(
        400,
        `Specified CanisterId ${canister} does not match effective canister id in URL ${ecid}`,
      );
    return canister;
  }

  async function call(req: IncomingMessage, res: ServerResponse, ecid: string, sync: boolean): Promise<void> {
    const a = await authenticated(req, 'call');
    targetOf(a, ecid, 'call');
    const id = Buffer.from(a.requestId).toString('hex');
    const done =
      backend.running(id) ?? (backend.known(id) ? Promise.resolve(backend.known(id)!) : backend.call(id, a, ecid));
    if (!sync) {
      // Accepted: the caller polls read_state. A failure to run is the replica's, answered to the poll.
      done.catch(() => undefined);
      return cbor(res, 202);
    }
    let late: () => void = () => undefined;
    const timer = setTimeout(() => late(), SYNC_CALL_TIMEOUT_MS);
    const status = await Promise.race([
      done,
      new Promise<undefined>((resolve) => (late = () => resolve(undefined))),
    ]).finally(() => clearTimeout(timer));
    if (!status) return cbor(res, 202);
    return cbor(res, 200, { status: 'replied', certificate: certifyStatus(a.requestId, status) });
  }

  async function query(req: IncomingMessage, res: ServerResponse, ecid: string): Promise<void> {
    const a = await authenticated(req, 'query');
    const canister = targetOf(a, ecid, 'query');
    const r = await backend.query(a.sender, canister, a.content.method_name as string, a.content.arg as Uint8Array);
    const timestamp = backend.wallNs();
    const body: Record<string, HashValue> =
      'reply' in r
        ? { status: 'replied', reply: { arg: r.reply } }
        : {
            status: 'rejected',
            reject_code: r.rejectCode,
            reject_message: r.rejectMessage,
            error_code: r.errorCode ?? '',
          };
    const signed = hashOfMap({ ...body, timestamp, request_id: a.requestId });
    const signature = new Uint8Array(sign(null, Buffer.concat([domain('ic-response'), signed]), backend.nodeKey));
    cbor(res, 200, { ...body, signatures: [{ timestamp, signature, identity: backend.view().nodeId.toUint8Array() }] });
  }

  async function read(
    req: IncomingMessage,
    res: ServerResponse,
    at: { canister: string } | { subnet: string },
  ): Promise<void> {
    const a = await authenticated(req, 'read_state');
    const view = backend.view();
    if ('subnet' in at && at.subnet !== view.subnetId.toText())
      throw new HttpRefusal(404, `subnet ${at.subnet} not found`);
    const tree = readState(a.content.paths as Uint8Array[][], at, a.sender, view);
    cbor(res, 200, { certificate: backend.certify(tree) });
  }

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://replica');
    const path = url.pathname;
    try {
      if (path === '/api/v2/status') {
        if (req.method !== 'GET') throw new HttpRefusal(405, 'use GET');
        return cbor(res, 200, {
          ic_api_version: '0.18.0',
          impl_source: 'domdao test replica',
          impl_version: '0.1.0',
          root_key: backend.rootKey,
          replica_health_status: 'healthy',
        });
      }
      const m = /^\/api\/(v2|v3|v4)\/(canister|subnet)\/([^/]+)\/(call|query|read_state)$/.exec(path);
      if (!m) throw new HttpRefusal(404, `no such endpoint: ${path}`);
      const [, version, kind, idText, endpoint] = m as unknown as [string, string, string, string, string];
      if (req.method !== 'POST') throw new HttpRefusal(405, 'use POST');
      if (kind === 'subnet') {
        if (endpoint !== 'read_state' || version === 'v4') throw new HttpRefusal(404, `no such endpoint: ${path}`);
        return await read(req, res, { subnet: principalOf(idText, 'the effective subnet id') });
      }
      const ecid = principalOf(idText, 'the effective canister id');
      if (endpoint === 'call') return await call(req, res, ecid, version !== 'v2');
      if (version === 'v4') throw new HttpRefusal(404, `no such endpoint: ${path}`);
      if (endpoint === 'query') return await query(req, res, ecid);
      return await read(req, res, { canister: ecid });
    } catch (e) {
      if (e instanceof HttpRefusal) {
        res.writeHead(e.status, { 'content-type': 'text/plain; charset=utf-8' });
        res.end(e.message);
        return;
      }
      res.writeHead(500, { 'content-type': 'text/plain; charset=utf-8' });
      res.end(`the test replica failed: ${(e as Error).message}`);
    }
  }

  const server = createServer((req, res) => void handle(req, res));
  return { server, handle };
}
