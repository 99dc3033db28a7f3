// The bridge's test harness for other workspaces' tests, as `@domdao/bridge-service/testing` (decision
// F62): the web app's tests (apps/portal/test) start the bridge in process, as the bridge's own tests do,
// and reach into it only through what this file names, so the bridge's test surface is one list.
export * from './harness.ts';
export { startFakeInference, type FakeInference } from './fake-inference.ts';
export { startFakeSources, type FakeSources } from './oracle-fakes.ts';
// A test sets up what it cannot reach over HTTP in time: an activity line with a chosen time, the AI
// index's sweep run now, and the sealed fields read with the bridge's own key.
export { addActivity } from '../src/features/inbox/activity.ts';
export { EMBED_SWEEP_JOB } from '../src/features/ai/routes.ts';
export { loadKeys } from '../src/core/keys.ts';
export { createOpener } from '../src/core/identity/sealed-fields.ts';
