// Builders for the variable shapes every service's environment schema uses (packages/config/src/load.ts reads them).
import { Type } from '@sinclair/typebox';

const enumOf = <T extends string>(values: readonly T[], def: T, description: string) =>
  Type.Unsafe<T>({ type: 'string', enum: [...values], default: def, description });

/** Helpers for common variable shapes. */
export const Env = {
  port: (def: number, description: string) => Type.Integer({ minimum: 0, maximum: 65535, default: def, description }),
  string: (description: string, def?: string) =>
    def === undefined ? Type.Optional(Type.String({ description })) : Type.String({ default: def, description }),
  secret: (description: string) => Type.Optional(Type.String({ minLength: 1, description })),
  int: (def: number, description: string, min = 0, max = Number.MAX_SAFE_INTEGER) =>
    Type.Integer({ minimum: min, maximum: max, default: def, description }),
  bool: (def: boolean, description: string) => Type.Boolean({ default: def, description }),
  enumOf,
  url: (description: string, def?: string) =>
    def === undefined
      ? Type.Optional(Type.String({ format: 'uri', description }))
      : Type.String({ format: 'uri', default: def, description }),
  /** LOG_LEVEL of every service: pino's levels, `info` unless set. */
  logLevel: () => enumOf(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'], 'info', 'pino log level'),
  /** NODE_ENV: `development` unless set; `description` says what `production` (and `test`) change in that service. */
  nodeEnv: (description: string) => enumOf(['development', 'production', 'test'], 'development', description),
};
