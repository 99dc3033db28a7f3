export { captureLogs, type CapturedLogs, type LogLine } from './logs.ts';
export { startRecorder, type Recorder, type RecordedRequest, type Responder } from './recorder.ts';
export { startSmtpSink, type SmtpSink, type ReceivedMail } from './smtp-sink.ts';
export { redisUrlForTests, requireRedis, uniquePrefix } from './redis.ts';
export { assertReadmeDocuments } from './readme.ts';
export { startPrivatePostgres, type PrivatePostgres } from './private-postgres.ts';
export { startPrivateRedis, type PrivateRedis } from './private-redis.ts';
export { acceptsConnection, freePort, portRange } from './free-port.ts';
export { START_DEV_FLAGS } from './start-dev.ts';
