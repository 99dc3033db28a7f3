// @domdao/replica: the test replica in process (`./host`), the six canisters deployed on it, and the
// replica over the IC's HTTP interface (`npm run replica`, decision W12).
export { deployWasm, wasmOf, type DeployOptions, type WasmDeployment } from './deploy.ts';
export {
  CANISTER_RANGE,
  INITIAL_DOM,
  ReplicaConfigError,
  startReplica,
  type ReplicaOptions,
  type RunningReplica,
} from './server.ts';
export { canisterInitArgs } from './deploy.ts';
export { canisterIdsEnv } from './ic-env.ts';
