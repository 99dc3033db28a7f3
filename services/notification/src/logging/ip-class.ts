// source_ip_class of the auth.unauthorized event (spec 3 "Events"): the rule lives in service-kit,
// shared with every service's access line.
export { sourceIpClass, type IpClass } from '@domdao/service-kit';
