// The package's front door (decision S32): what a proposal does, in words (decision F43).
export {
  CATEGORY_LABEL,
  categoryLabel,
  describePayload,
  payloadPrincipals,
  type Category,
  type PayloadContext,
  type PayloadLine,
  type PayloadText,
  type RulesNow,
} from './payload-text.ts';
export { domE8s, duration, moment, percent, price, usd } from './format.ts';
export { absoluteTime, relativeTime } from './when.ts';
