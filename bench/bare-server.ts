// The ceiling for the notification benchmark: node:http reading the same request body and answering
// 200 with a JSON body of the same shape, and nothing else.
import { randomUUID } from 'node:crypto';
import { createServer } from 'node:http';

createServer((req, res) => {
  req.resume();
  req.on('end', () => {
    const body = JSON.stringify({ id: `stub_${randomUUID()}`, status: 'sent', stubbed: true, request_id: randomUUID() });
    res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
    res.end(body);
  });
}).listen(Number(process.env.PORT), process.env.HOST);
