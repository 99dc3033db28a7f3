/** Bad input to `npm run backup` or `npm run restore`: one sentence, and nothing has been changed. */
export class Refusal extends Error {}
