/** Bad input to `npm run migrate`: one sentence, and nothing has been changed (exit 2). */
export class Refusal extends Error {}
