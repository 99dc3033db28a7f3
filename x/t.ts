import { foldLines as theirs } from 'ical-generator';
import { foldLines } from '../services/notification/src/calendar/fold.ts';
import fc from 'fast-check';
fc.assert(fc.property(fc.array(fc.oneof(fc.string({ unit: 'binary', maxLength: 300 }), fc.string({unit:'grapheme', maxLength: 200}), fc.constant('\r\n'), fc.constant('\ud800'), fc.constant('\udc00'))).map(a=>a.join('')), (s) => foldLines(s) === theirs(s)), { numRuns: 20000 });
const s = 'DESCRIPTION:' + 'Ünïcödé 日本語のイベント 🎉 long words '.repeat(20);
let t = performance.now(); for (let i = 0; i < 1000; i++) theirs(s); console.log('theirs µs', (performance.now() - t));
t = performance.now(); for (let i = 0; i < 1000; i++) foldLines(s); console.log('ours µs', (performance.now() - t));
console.log('ok');
