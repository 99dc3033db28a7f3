// Decision W13: what read_state reveals and to whom (interface specification, "Request: Read state"):
// `time` always; `subnet/...` (the replica is its own root subnet: its public key, its one canister
// range and its one node's key, which signs query responses); `canister_ranges/<subnet>` at the subnet
// endpoint; `request_status/<id>` to the sender of that request at its effective canister;
// `canister/<id>/{module_hash,controllers,metadata/<name>}` for the effective canister (private
// metadata to its controllers). A path the IC would refuse is answered 403 (not allowed) or 404 (no such path).
import { Cbor } from '@icp-sdk/core/agent';
import { Principal } from '@icp-sdk/core/principal';
import { HttpRefusal } from './auth.ts';
import { leb128 } from './hash.ts';
import { labels, put, type StateNode } from './state-tree.ts';

export interface CallStatus {
  status: 'received' | 'processing' | 'replied' | 'rejected';
  reply?: Uint8Array;
  reject_code?: number;
  reject_message?: string;
  error_code?: string;
  sender: string;
  /** The effective canister id the call was made at. */
  canister: string;
  expiry: bigint;
}

export interface CanisterFacts {
  moduleHash: Uint8Array;
  controllers: string[];
  /** Custom sections `icp:public <name>` and `icp:private <name>` of the module. */
  metadata: Map<string, { public: boolean; bytes: Uint8Array }>;
}

export interface StateView {
  timeNs: bigint;
  subnetId: Principal;
  rootKey: Uint8Array;
  nodeId: Principal;
  nodePublicKey: Uint8Array;
  /** The canister ids this subnet hosts: [lowest, highest]. */
  range: [Principal, Principal];
  call(requestId: string): CallStatus | undefined;
  canister(id: string): CanisterFacts | undefined;
}

const text = (b: Uint8Array) => Buffer.from(b).toString('utf8');
const utf8 = (s: string) => new Uint8Array(Buffer.from(s));
const forbidden = (m: string) => new HttpRefusal(403, m);
const noPath = (m: string) => new HttpRefusal(404, m);

/** The request status subtree of one call (what a v3/v4 call's certificate carries too). */
export function statusNode(s: CallStatus): StateNode {
  const n = labels();
  put(n, ['status'], utf8(s.status));
  if (s.status === 'replied') put(n, ['reply'], s.reply!);
  if (s.status === 'rejected') {
    put(n, ['reject_code'], leb128(s.reject_code!));
    put(n, ['reject_message'], utf8(s.reject_message!));
    if (s.error_code) put(n, ['error_code'], utf8(s.error_code));
  }
  return n;
}

function subnetNode(v: StateView): StateNode {
  const n = labels();
  put(n, ['public_key'], v.rootKey);
  put(n, ['type'], utf8('application'));
  put(n, ['canister_ranges'], new Uint8Array(Cbor.encode([v.range.map((p) => p.toUint8Array())])));
  put(n, ['node', v.nodeId.toUint8Array(), 'public_key'], v.nodePublicKey);
  return n;
}

/** The part of the state tree `paths` ask for, always with `time`; `at` is the endpoint's effective id. */
export function readState(
  paths: Uint8Array[][],
  at: { canister: string } | { subnet: string },
  sender: string,
  v: StateView,
): StateNode {
  const root = labels();
  put(root, ['time'], leb128(v.timeNs));
  const statusIds = new Set<string>();
  for (const path of paths) {
    const [head, ...rest] = path;
    const name = head ? text(head) : '';
    if (name === 'time' && rest.length === 0) continue;
    if (name === 'api_boundary_nodes') {
      if (rest.length === 0) put(root, ['api_boundary_nodes'], labels());
      continue;
    }
    if (name === 'subnet') {
      if (rest.length === 0) {
        put(root, ['subnet', v.subnetId.toUint8Array()], subnetNode(v));
        continue;
      }
      if (!Buffer.from(rest[0]!).equals(Buffer.from(v.subnetId.toUint8Array()))) continue; // no such subnet: absent
      const sub = subnetNode(v);
      let node: StateNode | undefined = sub;
      for (const l of rest.slice(1))
        node = node instanceof Map ? node.get(Buffer.from(l).toString('hex'))?.node : undefined;
      if (node !== undefined) put(root, ['subnet', ...rest], node);
      continue;
    }
    if (name === 'canister_ranges') {
      if (!('subnet' in at)) throw forbidden('canister_ranges can only be read at the subnet endpoint');
      if (rest.length !== 1) throw noPath('Invalid path requested.');
      if (Buffer.from(rest[0]!).equals(Buffer.from(v.subnetId.toUint8Array())))
        put(
          root,
          ['canister_ranges', rest[0]!, v.range[0].toUint8Array()],
          new Uint8Array(Cbor.encode([v.range.map((p) => p.toUint8Array())])),
        );
      continue;
    }
    if (name === 'request_status') {
      if (rest.length < 1 || rest.length > 2) throw noPath('Invalid path requested.');
      const id = Buffer.from(rest[0]!).toString('hex');
      statusIds.add(id);
      if (statusIds.size > 1) throw new HttpRefusal(400, 'all request_status paths must refer to the same request id');
      const s = v.call(id);
      if (!s) continue; // unknown: absent
      if (s.sender !== sender || !('canister' in at) || s.canister !== at.canister)
        throw forbidden(`Request IDs must be for requests signed by the caller and made at this canister: 0x${id}`);
      const node = statusNode(s);
      if (rest.length === 1) put(root, ['request_status', rest[0]!], node);
      else {
        const field = (node as Map<string, { node: StateNode }>).get(Buffer.from(rest[1]!).toString('hex'));
        if (field) put(root, ['request_status', rest[0]!, rest[1]!], field.node);
      }
      continue;
    }
    if (name === 'canister') {
      const [id, what, meta, ...more] = rest;
      if (!id || !what || more.length > 0) throw noPath('Invalid path requested.');
      const canister = Principal.fromUint8Array(id).toText();
      if (!('canister' in at) || canister !== at.canister)
        throw forbidden(`canister ${canister} is not the effective canister id of this request`);
      const facts = v.canister(canister);
      const field = text(what);
      if (field === 'module_hash' && !meta) {
        if (facts) put(root, ['canister', id, 'module_hash'], facts.moduleHash);
      } else if (field === 'controllers' && !meta) {
        if (facts)
          put(
            root,
            ['canister', id, 'controllers'],
            new Uint8Array(Cbor.encode(facts.controllers.map((c) => Principal.fromText(c).toUint8Array()))),
          );
      } else if (field === 'metadata' && meta) {
        const section = facts?.metadata.get(text(meta));
        if (section && !section.public && !facts!.controllers.includes(sender))
          throw forbidden(`the metadata section ${text(meta)} is private to the canister's controllers`);
        if (section) put(root, ['canister', id, 'metadata', meta], section.bytes);
      } else throw noPath('Invalid path requested.');
      continue;
    }
    throw noPath('Invalid path requested.');
  }
  return root;
}
