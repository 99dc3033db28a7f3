// The entry points of a canister's method table, declared from the table instead of once per method by
// hand: each method is Azle's @query or @update (as the table's `kind` says) with the table's Candid
// types, and answers through the canister's dispatcher, as every hand-written one did. Azle's decorators
// are standard (TC39) method decorators that only read the context's `name` and register through
// `addInitializer`; this base class gives them exactly that and runs the initializers when the exported
// class is instantiated, as the language does for a decorated method (npm run build:canisters leaves
// every .did unchanged, and the wasm tests call each canister through these methods).
import { IDL, query, update } from 'azle';
import type { MethodTable } from '../candid/methods.ts';
import type { dispatcher } from './entry.ts';

type Initializer = (this: object) => void;
type Constructor = new () => object;
type MethodDecorator = (method: (...a: unknown[]) => unknown, context: ClassMethodDecoratorContext) => unknown;

/**
 * A base class answering every method of `table` through `calls`, on top of `Base`: but those `Base`
 * already answers (ICRC-7's, icrc7EntryPoints) and those in `except` (declared by the canister's own
 * class, e.g. a method that replies by hand).
 */
export function tableEntryPoints(
  table: MethodTable,
  calls: ReturnType<typeof dispatcher>,
  options: { except?: readonly string[]; Base?: Constructor } = {},
): Constructor {
  const initializers: Initializer[] = [];
  const Base = options.Base ?? class {};
  class TableEntryPoints extends Base {
    constructor() {
      super();
      for (const init of initializers) init.call(this);
    }
  }
  for (const [name, m] of Object.entries(table)) {
    if (options.except?.includes(name) || name in Base.prototype) continue;
    const method =
      m.kind === 'query'
        ? { [name]: (...a: unknown[]) => calls.query(name, a) }[name]
        : { [name]: (...a: unknown[]) => calls.update(name, a) }[name];
    const decorate = (m.kind === 'query' ? query : update)(
      m.args as unknown as IDL.Type[],
      m.ret as unknown as IDL.Type,
    ) as unknown as MethodDecorator;
    const context = {
      kind: 'method',
      name,
      static: false,
      private: false,
      access: { has: (o: object) => name in o, get: (o: object) => (o as Record<string, unknown>)[name] },
      metadata: {},
      addInitializer: (init: Initializer) => initializers.push(init),
    } as unknown as ClassMethodDecoratorContext;
    const replaced = decorate(method, context);
    Object.defineProperty(TableEntryPoints.prototype, name, {
      value: typeof replaced === 'function' ? replaced : method,
      writable: true,
      configurable: true,
    });
  }
  return TableEntryPoints;
}
