// Request correlation (spec 3 "Request correlation"): the rule lives in service-kit, shared with the
// bridge and the gateway.
export { isRfc4122Uuid, requestIdFor } from '@domdao/service-kit';
