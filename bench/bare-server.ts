// The ceiling for the notification benchmark: node:http reading the same request body and answering
// 200 with a JSON body of the same shape, and nothing else. With BARE_BATCHED=1 it writes its answers
// together at the end of each turn of the event loop, as the service's front door does (decision D48):
// shown beside the ceiling so that the share of bare is not read as more than it is.
import { randomUUID } from 'node:crypto';
import { createServer, type ServerResponse } from 'node:http';

const batched = process.env.BARE_BATCHED === '1';
let outgoing: Array<[ServerResponse, string]> = [];
const write = (res: ServerResponse, body: string) => {
  res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
  res.end(body);
};
const writeOutgoing = () => {
  const batch = outgoing;
  outgoing = [];
  for (const [res, body] of batch) write(res, body);
};

createServer((req, res) => {
  req.resume();
  req.on('end', () => {
    const body = JSON.stringify({
      id: `stub_${randomUUID()}`,
      status: 'sent',
      stubbed: true,
      request_id: randomUUID(),
    });
    if (!batched) write(res, body);
    else if (outgoing.push([res, body]) === 1) setImmediate(writeOutgoing);
  });
}).listen(Number(process.env.PORT), process.env.HOST);
