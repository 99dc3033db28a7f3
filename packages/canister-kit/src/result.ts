// Candid's Result as Azle maps it: { Ok: T } | { Err: E }.
export type Result<T, E> = { Ok: T } | { Err: E };

export const Ok = <T>(value: T): { Ok: T } => ({ Ok: value });
export const Err = <E>(error: E): { Err: E } => ({ Err: error });

export function isOk<T, E>(r: Result<T, E>): r is { Ok: T } {
  return 'Ok' in r;
}
