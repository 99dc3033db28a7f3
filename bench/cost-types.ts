// The cost survey's records (decision W21): what bench/wasm-cost.ts writes and bench/ic-cost*.ts read, in a file
// of their own so the survey and its state-transfer part need not import each other.
import type { CanisterName } from '../platform/canisters/src/api.ts';

export interface CostCall {
  canister: CanisterName;
  method: string;
  kind: 'update' | 'query';
  /**
   * 'real': a call the bridge makes, with real arguments; 'callee': called by another canister in a real
   * call's chain (outcome names the caller); 'probe': the smallest arguments, by an admin.
   */
  how: 'real' | 'callee' | 'probe';
  /** Ok, Err:<case>, or reject: <message>. */
  outcome: string;
  /** The Candid argument's bytes plus the method name: what the ingress fee per byte is charged on. */
  argBytes: number;
  /** The method's own message. */
  instructions: string;
  /** Every message of the call's chain: the method, what it calls on other canisters, its callbacks. */
  messages: number;
  chainInstructions: string;
  /** Calls to other canisters in the chain (each pays the IC's inter-canister call fee). */
  interCanisterCalls: number;
}

export interface CostFile {
  members: number;
  votes: number;
  calls: CostCall[];
  /** Each canister's whole state exported and imported (decision W32). */
  transfer?: TransferCost[];
}

/** One canister's whole state moved at the survey's size: every page exported, every import step. */
export interface TransferCost {
  canister: CanisterName;
  entries: number;
  /** state_export calls (every store to its last page). */
  pages: number;
  exportInstructions: string;
  largestPage: string;
  /** The entries of the largest page (what a page of that store holds at the default limit, 500). */
  largestPageEntries?: number;
  /** Per store: its entries, and its largest page's instructions and entries (absent in the first 300-member file). */
  stores?: Array<{
    name: string;
    entries: number;
    largestPage: string;
    largestPageEntries: number;
    largestChunk: string;
    largestChunkEntries: number;
  }>;
  /** Reply bytes of every page (the IC charges a query from outside nothing for them). */
  exportBytes: number;
  /** state_import calls: Begin, the chunks, Seal. */
  importMessages: number;
  importInstructions: string;
  largestChunk: string;
  /** Absent in the files of the first run (300 members), which did not record it. */
  largestChunkEntries?: number;
  /** Candid argument bytes plus the method name, over every import message (the ingress byte fee). */
  importArgBytes: number;
}
