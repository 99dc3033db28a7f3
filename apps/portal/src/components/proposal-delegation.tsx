// The proposal page's parts for liquid democracy and reasons (decisions F18–F21): direct and delegated
// turnout, how the member's ballot was cast (directly, or by their delegate, with the chance to vote
// themselves before close; the delegate by name, decision F22), and the reasons given with votes (without voters).
import { useApi, type Answer } from '../api.ts';

export interface Turnout {
  direct: string;
  delegated: string;
  delegated_counted: boolean;
}
export type Ballot = Answer<'getMyVote'>;

/** Decision F20: the canister counts delegated votes at close (G31), so until then the line says so, not 0. */
export function TurnoutLine({ turnout }: { turnout: Turnout | null | undefined }) {
  if (!turnout) return null;
  return (
    <p class="muted" data-testid="turnout">
      {turnout.direct} voted directly ·{' '}
      {turnout.delegated_counted
        ? `${turnout.delegated} by their delegates`
        : 'votes through delegates are counted when voting closes'}
    </p>
  );
}

/** "Your vote": direct, or the delegate's for you (not final while open: the member may still vote). */
export function BallotLine({ ballot, open }: { ballot: Ballot | undefined; open: boolean }) {
  if (!ballot) return <p>Your vote: …</p>;
  if (!ballot.vote) return <p>Your vote: not cast</p>;
  // The delegate by name; the principal on hover, for whoever needs to tell two members apart (F22).
  if (ballot.cast === 'delegate')
    return (
      <p data-testid="ballot">
        Your vote: {ballot.vote}, voted by your delegate{' '}
        <strong title={ballot.delegate ?? undefined}>
          <bdi>{ballot.delegate_name ?? 'a member without a name'}</bdi>
        </strong>
        {open && !ballot.final ? '. Vote below to replace it with your own before voting closes.' : ''}
      </p>
    );
  return (
    <p data-testid="ballot">
      Your vote: {ballot.vote}, voted directly
      {ballot.reason ? (
        <>
          {' '}
          (“<bdi>{ballot.reason}</bdi>”)
        </>
      ) : null}
    </p>
  );
}

/** Decision F21: the reasons members gave, with their vote and without their names (G34, V28). */
export function VoteReasons({ id }: { id: string }) {
  const reasons = useApi<Answer<'listVoteReasons'>>(`/api/governance/proposals/${encodeURIComponent(id)}/reasons`);
  if (!reasons.data?.items.length) return null;
  return (
    <section class="card" aria-label="Reasons">
      <h2>Reasons given</h2>
      <ul>
        {reasons.data.items.map((r) => (
          <li key={r.seq}>
            <strong>{r.vote}</strong>: <bdi>{r.reason}</bdi>
          </li>
        ))}
      </ul>
    </section>
  );
}
