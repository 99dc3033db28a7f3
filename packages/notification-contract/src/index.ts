// Decision S22: what a caller of the notification service may send, in a package the service and
// @domdao/notification-client both import (the client no longer reaches into the service).
export { field, MULTI_LINE, NOT_LINE_BREAK_OR_CONTROL, SINGLE_LINE } from './fields.ts';
export { currency } from './money.ts';
export { templateSchemas, type TemplateData, type TemplateType } from './schemas.ts';
