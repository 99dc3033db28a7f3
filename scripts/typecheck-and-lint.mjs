// Decision R22: the type-check and ESLint in one process, on one set of TypeScript programs.
// `tsc -p` and typescript-eslint's type-aware rules each build a program for every project (parse,
// bind, check: about 15 CPU-s for the root project alone); here each project is built once, its
// diagnostics printed as `tsc -p` prints them, and the same programs are handed to ESLint
// (typescript-eslint's `parserOptions.programs`), whose rules then ask an already-built checker.
// `npm test` runs this as one job when it runs both `--typecheck` and `--lint` (scripts/test-jobs.mjs);
// `npm run typecheck` and `npm run lint` stay the tools' own commands.
//
// Usage: node scripts/typecheck-and-lint.mjs -p <tsconfig> [-p <tsconfig> …] eslint [-c <config>] <path> [<path> …]
// Exit 0 when both are clean, 1 when either found something, 2 when the command line is wrong.
import { resolve } from 'node:path';
import ts from 'typescript';
import { ESLint } from 'eslint';

const usage = 'usage: typecheck-and-lint.mjs -p <tsconfig> [-p <tsconfig> …] eslint [-c <config>] <path> [<path> …]';
const args = process.argv.slice(2);
const projects = [];
while (args[0] === '-p' && args[1]) projects.push(resolve(args.splice(0, 2)[1]));
if (args.shift() !== 'eslint') fail(usage);
let configFile;
if (args[0] === '-c' || args[0] === '--config') configFile = args.splice(0, 2)[1];
if (args.length === 0 || args.some((a) => a.startsWith('-'))) fail(usage);

function fail(message) {
  console.error(message);
  process.exit(2);
}

const host = {
  getCanonicalFileName: (f) => f,
  getCurrentDirectory: ts.sys.getCurrentDirectory,
  getNewLine: () => ts.sys.newLine,
};
const programs = new Map();

/** The project's program, built once; its configuration's own errors are returned with it. */
function program(tsconfig) {
  if (!programs.has(tsconfig)) {
    const errors = [];
    const config = ts.getParsedCommandLineOfConfigFile(
      tsconfig,
      {},
      { ...ts.sys, onUnRecoverableConfigFileDiagnostic: (d) => errors.push(d) },
    );
    const built =
      config &&
      ts.createProgram({
        rootNames: config.fileNames,
        options: config.options,
        projectReferences: config.projectReferences,
        configFileParsingDiagnostics: config.errors,
      });
    programs.set(tsconfig, { built, errors: [...errors, ...(config?.errors ?? [])] });
  }
  return programs.get(tsconfig);
}

// The type-check: what `tsc -p` reports for each project, in its format.
let typeErrors = 0;
for (const tsconfig of projects) {
  const { built, errors } = program(tsconfig);
  const diagnostics = [...errors, ...(built ? ts.getPreEmitDiagnostics(built) : [])];
  typeErrors += diagnostics.filter((d) => d.category === ts.DiagnosticCategory.Error).length;
  if (diagnostics.length) process.stdout.write(ts.formatDiagnostics(diagnostics, host));
}

// ESLint, with the programs of the projects its configuration names, in its order (a file in two
// projects is linted in the first, as with `parserOptions.project`).
const base = new ESLint({ ...(configFile && { overrideConfigFile: configFile }) });
const named = [];
for (const path of args) {
  const options = (await base.calculateConfigForFile(resolve(path, path.endsWith('.ts') ? '' : 'x.ts')))
    ?.languageOptions?.parserOptions;
  for (const p of [options?.project ?? []].flat()) {
    const tsconfig = resolve(options.tsconfigRootDir ?? process.cwd(), p);
    if (!named.includes(tsconfig)) named.push(tsconfig);
  }
}
const shared = named.filter((p) => projects.includes(p)).length;
// A project only ESLint names is not type-checked here, but a configuration it cannot read is an error.
for (const tsconfig of named.filter((p) => !projects.includes(p))) {
  const { errors } = program(tsconfig);
  typeErrors += errors.length;
  if (errors.length) process.stdout.write(ts.formatDiagnostics(errors, host));
}
const eslint = new ESLint({
  ...(configFile && { overrideConfigFile: configFile }),
  overrideConfig: {
    languageOptions: { parserOptions: { project: null, programs: named.map((p) => program(p).built).filter(Boolean) } },
  },
});
const results = await eslint.lintFiles(args);
const lintErrors = results.reduce((n, r) => n + r.errorCount + r.fatalErrorCount, 0);
const text = await (await eslint.loadFormatter('stylish')).format(results);
if (text) process.stdout.write(`${text}\n`);
console.log(
  `typecheck: ${projects.length} project(s), ${typeErrors} error(s); eslint: ${results.length} file(s), ${lintErrors} error(s); ${shared} program(s) built once for both`,
);
process.exit(typeErrors || lintErrors ? 1 : 0);
