// Every proposal on the governance canister, newest first, a page at a time (list_proposals).
import type { CanisterClients } from '@domdao/canisters';
import type { ProposalText } from './summaries.ts';

type Governance = Pick<CanisterClients['governance'], 'list_proposals'>;

const PAGE = 100;

export async function* allProposals(governance: Governance, signal?: AbortSignal): AsyncGenerator<ProposalText[]> {
  let from: bigint | undefined;
  for (;;) {
    if (signal?.aborted) return;
    const page = await governance.list_proposals({ limit: PAGE, ...(from !== undefined && { from_id: from }) });
    const items = from === undefined ? page : page.filter((p) => p.id <= from!);
    if (items.length === 0) return;
    yield items.map((p) => ({ id: String(p.id), title: p.title, body: p.body }));
    const last = items[items.length - 1]!.id;
    if (last === 0n || page.length < PAGE) return;
    from = last - 1n;
  }
}

/** The text an embedding is made of, and the excerpt search shows (decision A16). */
export const EMBED_TEXT_CHARS = 8_000;
export const EXCERPT_CHARS = 240;

export function embeddingText(p: ProposalText): string {
  return `${p.title}\n\n${p.body}`.slice(0, EMBED_TEXT_CHARS);
}

export function excerpt(body: string): string {
  const plain = body
    .replace(/```[\s\S]*?```/g, ' ')
    .replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/[#>*_`|-]+/g, ' ')
    .replace(/\s+/g, ' ')
    .trim();
  if (plain.length <= EXCERPT_CHARS) return plain;
  const cut = plain.slice(0, EXCERPT_CHARS);
  const space = cut.lastIndexOf(' ');
  return `${(space > EXCERPT_CHARS * 0.6 ? cut.slice(0, space) : cut).trimEnd()}…`;
}
