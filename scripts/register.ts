// `npm run register -- --email … --name … --dob YYYY-MM-DD [--bridge URL]`: registers an account on a
// running bridge the way a front end does: fetches the bridge's published HPKE key, seals email, name
// and date of birth with it (@domdao/registration) and posts them with the password. The password is
// asked for without echo on a terminal, or read from the first line of stdin (for scripts).
// The bridge and the outbox are those of `npm start`'s environment (BRIDGE_URL, HOST, BRIDGE_PORT,
// DATA_DIR, DEV_OUTBOX_FILE; decision R16).
import { parseArgs } from 'node:util';
import { encryptRegistration } from '@domdao/registration/seal';
import { notRunning, outboxLink, platformEnv } from './platform-env.ts';

const USAGE =
  'usage: npm run register -- --email ada@example.org --name "Ada Lovelace" --dob 1990-05-01 [--bridge http://127.0.0.1:3200]\n       (the password is asked for, or read from the first line of stdin)';

function fail(message: string): never {
  console.error(`register: ${message}`);
  process.exit(1);
}

/** Reads a line from the terminal without echoing it. */
async function promptHidden(question: string): Promise<string> {
  const stdin = process.stdin;
  // Echo off before the prompt appears: text typed as soon as it shows must not be echoed.
  stdin.setRawMode(true);
  process.stderr.write(question);
  stdin.resume();
  stdin.setEncoding('utf8');
  return new Promise((resolve, reject) => {
    let value = '';
    const done = (err?: Error) => {
      stdin.setRawMode(false);
      stdin.pause();
      stdin.off('data', onData);
      process.stderr.write('\n');
      if (err) reject(err);
      else resolve(value);
    };
    const onData = (chunk: string) => {
      for (const ch of chunk) {
        if (ch === '\r' || ch === '\n') return done();
        if (ch === '\u0003') return done(new Error('cancelled'));
        if (ch === '\u007f' || ch === '\b') value = value.slice(0, -1);
        else if (ch >= ' ') value += ch;
      }
    };
    stdin.on('data', onData);
  });
}

async function readStdinLine(): Promise<string> {
  let text = '';
  for await (const chunk of process.stdin) text += chunk;
  return text.split(/\r?\n/)[0] ?? '';
}

async function main() {
  let values;
  try {
    ({ values } = parseArgs({
      options: {
        email: { type: 'string' },
        name: { type: 'string' },
        dob: { type: 'string' },
        bridge: { type: 'string' },
        help: { type: 'boolean' },
      },
      strict: true,
    }));
  } catch (e) {
    fail(`${(e as Error).message}\n${USAGE}`);
  }
  if (values.help) {
    console.log(USAGE);
    return;
  }
  const { email, name, dob } = values;
  if (!email || !name || !dob) fail(`--email, --name and --dob are required\n${USAGE}`);
  if (!/^\d{4}-\d{2}-\d{2}$/.test(dob)) fail('--dob must be YYYY-MM-DD');
  const platform = platformEnv();
  const bridge = values.bridge ? values.bridge.replace(/\/+$/, '') : platform.bridge;

  const password = process.stdin.isTTY
    ? await promptHidden('password (12 to 128 characters): ')
    : await readStdinLine();
  if (!password) fail('no password given');

  let keyRes: Response;
  try {
    keyRes = await fetch(`${bridge}/api/auth/registration-key`);
  } catch (e) {
    fail(notRunning(bridge, e, ', or --bridge'));
  }
  if (!keyRes.ok) fail(`GET /api/auth/registration-key answered ${keyRes.status}`);
  const key = (await keyRes.json()) as { public_key: string };
  const fields = await encryptRegistration(key.public_key, { email, name, dob });
  const res = await fetch(`${bridge}/api/auth/register`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ ...fields, password, tos_accepted: true }),
  });
  const body = (await res.json().catch(() => ({}))) as {
    error?: string;
    message?: string;
    user_id?: string;
    status?: string;
    verification_email_sent?: boolean;
  };
  if (res.status !== 201) fail(`${res.status} ${body.error ?? ''}: ${body.message ?? JSON.stringify(body)}`);
  console.log(
    `registered ${email}: user_id ${body.user_id}, ${body.status}; verification email ${body.verification_email_sent ? 'sent' : 'NOT sent'}`,
  );
  // `npm start` writes verification links to a development outbox: show this one.
  // A bridge that sends real email keeps no outbox: say where the link was looked for, once.
  let link: string | undefined;
  try {
    link = outboxLink(platform.outbox, email, 'verification');
  } catch (e) {
    fail(`registered, but the verification link cannot be shown: ${(e as Error).message}`);
  }
  if (link) console.log(`verification link (development outbox ${platform.outbox}):\n  ${link}`);
}

// One sentence, never a stack: whatever went wrong is said as the other failures are.
await main().catch((e: unknown) => fail((e as Error).message));
