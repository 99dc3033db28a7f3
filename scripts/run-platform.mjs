// `npm start` (decisions P14, R14): one Node process builds the run path, then runs it in itself,
// started by `exec` so that it replaces the shell npm runs scripts in. A process manager's SIGTERM
// reaches npm, which forwards it to its child: this process, which stops the platform. Before, the
// start script was `build && node start.js`: npm's child was the shell, which died of the signal
// without passing it on (dash neither forwards signals nor execs a script's last command), and the
// platform ran on, orphaned.
// esbuild's service process is stopped once the build is done (and ends with this one's stdin pipe
// should a signal end the build).
import { pathToFileURL } from 'node:url';
import { buildRunPath } from './build-run-path.mjs';

await import(pathToFileURL(await buildRunPath()).href);
