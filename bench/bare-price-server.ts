// The ceiling for the price benchmark: node:http answering GET with a constant JSON body of the
// price response's shape, and nothing else.
import { createServer } from 'node:http';

const body = JSON.stringify({
  price_usd: 0.25,
  timestamp: 1_773_144_000,
  source: 'aggregate',
  sources: [
    { name: 'a', price: 0.25, weight: 1 },
    { name: 'b', price: 0.25, weight: 1 },
  ],
  confidence: 'medium',
  stale: false,
});
createServer((req, res) => {
  req.resume();
  res.writeHead(200, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(body) });
  res.end(body);
}).listen(Number(process.env.PORT), process.env.HOST);
