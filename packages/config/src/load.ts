// Environment configuration, validated once at start-up. Every service declares its variables as a
// TypeBox object schema (which doubles as documentation) and gets a typed, defaulted config back, or
// a ConfigError listing every bad variable at once.
import type { Static, TObject, TSchema } from '@sinclair/typebox';
import { Ajv } from 'ajv';
import addFormatsModule from 'ajv-formats';

const addFormats = addFormatsModule as unknown as (ajv: Ajv) => Ajv;

export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`invalid configuration:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
    this.name = 'ConfigError';
  }
}

const ajv = addFormats(new Ajv({ coerceTypes: true, useDefaults: true, allErrors: true, strict: false }));

/**
 * Reads the variables named in `schema` from `env`. Empty strings count as unset, so `SERVICE_TOKEN=`
 * fails closed like an absent variable instead of becoming an empty secret.
 */
export function loadConfig<S extends TObject>(schema: S, env: NodeJS.ProcessEnv = process.env): Static<S> {
  const input: Record<string, unknown> = {};
  for (const key of Object.keys(schema.properties)) {
    const value = env[key];
    if (value !== undefined && value.trim() !== '') input[key] = value.trim();
  }
  const validate = ajv.compile(schema);
  if (!validate(input)) {
    const problems = (validate.errors ?? []).map((e) => {
      const name =
        e.instancePath.replace(/^\//, '') || (e.params as { missingProperty?: string }).missingProperty || '(root)';
      const got = name in input ? ` (got ${JSON.stringify(input[name])})` : '';
      return `${name}: ${e.message ?? 'invalid'}${got}`;
    });
    throw new ConfigError(problems);
  }
  return input;
}

/** Documentation row per variable, for the generated configuration references (docs/reference/) and `--help` output. */
export function describeConfig(schema: TObject): Array<{ name: string; default: string; description: string }> {
  return Object.entries(schema.properties).map(([name, s]: [string, TSchema]) => ({
    name,
    default: s.default === undefined ? '(none)' : String(s.default),
    description: String(s.description ?? ''),
  }));
}
