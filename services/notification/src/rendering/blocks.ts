// The vocabulary templates write in. One block list renders to both the HTML and the plain-text part,
// so the two never drift apart. HTML is table-based with inline styles: what Outlook, Gmail and Apple
// Mail all render the same way.
import type { Brand } from '../brands/brands.ts';
import { escapeAttr, escapeText } from './escape.ts';

export type Block =
  | { kind: 'heading'; text: string }
  | { kind: 'paragraph'; text: string }
  | { kind: 'button'; label: string; url: string }
  | { kind: 'link'; label: string; url: string }
  | { kind: 'code'; text: string }
  | { kind: 'details'; rows: Array<[label: string, value: string]> }
  | { kind: 'note'; text: string }
  | { kind: 'items'; items: Array<{ title: string; body?: string; url?: string; meta?: string }> }
  | { kind: 'table'; head: string[]; rows: Array<{ cells: string[]; url?: string }> };

const FONT = "font-family:-apple-system,'Segoe UI',Roboto,Helvetica,Arial,sans-serif;";
const TEXT = '#1F2937';
const MUTED = '#6B7280';
const RULE = '#E5E7EB';

/** Newlines in caller text become <br>; the text itself is escaped first. */
function multiline(value: string): string {
  // Without a line feed there is nothing to replace (the common case: skip the regex pass).
  return value.includes('\n') ? escapeText(value).replace(/\r?\n/g, '<br>') : escapeText(value);
}

function row(inner: string, padding = '0 0 16px 0'): string {
  return `<tr><td style="${FONT}padding:${padding};color:${TEXT};font-size:16px;line-height:24px;">${inner}</td></tr>`;
}

export function blockHtml(block: Block, brand: Brand): string {
  switch (block.kind) {
    case 'heading':
      return row(`<h1 style="margin:0;${FONT}font-size:22px;line-height:30px;font-weight:700;color:${TEXT};">${escapeText(block.text)}</h1>`);
    case 'paragraph':
      return row(multiline(block.text));
    case 'note':
      return row(`<span style="font-size:13px;line-height:20px;color:${MUTED};">${multiline(block.text)}</span>`);
    case 'code':
      return row(
        `<div style="${FONT}font-size:28px;line-height:36px;font-weight:700;letter-spacing:6px;color:${TEXT};background:#F3F4F6;border-radius:6px;padding:12px 16px;text-align:center;">${escapeText(block.text)}</div>`,
      );
    case 'link':
      return row(`<a href="${escapeAttr(block.url)}" style="color:${brand.primaryColor};text-decoration:underline;">${escapeText(block.label)}</a>`);
    case 'button':
      // Bulletproof button: the table cell carries the colour so Outlook (no padding on <a>) shows it too.
      return row(
        `<table role="presentation" border="0" cellpadding="0" cellspacing="0"><tr><td bgcolor="${brand.primaryColor}" style="border-radius:6px;background:${brand.primaryColor};">` +
          `<a href="${escapeAttr(block.url)}" target="_blank" style="display:inline-block;${FONT}font-size:16px;font-weight:600;line-height:20px;color:#FFFFFF;text-decoration:none;padding:12px 24px;border-radius:6px;">${escapeText(block.label)}</a>` +
          `</td></tr></table>` +
          `<p style="margin:8px 0 0 0;font-size:12px;line-height:18px;color:${MUTED};word-break:break-all;">${escapeText(block.url)}</p>`,
      );
    case 'details':
      return row(
        `<table role="presentation" width="100%" border="0" cellpadding="0" cellspacing="0" style="border-top:1px solid ${RULE};">` +
          block.rows
            .map(
              ([label, value]) =>
                `<tr><td style="${FONT}padding:8px 12px 8px 0;border-bottom:1px solid ${RULE};font-size:14px;color:${MUTED};width:40%;vertical-align:top;">${escapeText(label)}</td>` +
                `<td style="${FONT}padding:8px 0;border-bottom:1px solid ${RULE};font-size:14px;color:${TEXT};vertical-align:top;word-break:break-word;">${multiline(value)}</td></tr>`,
            )
            .join('') +
          `</table>`,
      );
    case 'items':
      return row(
        block.items
          .map((item) => {
            const title = item.url
              ? `<a href="${escapeAttr(item.url)}" style="color:${brand.primaryColor};text-decoration:none;font-weight:600;">${escapeText(item.title)}</a>`
              : `<b>${escapeText(item.title)}</b>`;
            const meta = item.meta ? `<br><span style="font-size:12px;color:${MUTED};">${escapeText(item.meta)}</span>` : '';
            const body = item.body ? `<br><span style="font-size:14px;">${multiline(item.body)}</span>` : '';
            return `<p style="margin:0;padding:10px 0;border-bottom:1px solid ${RULE};font-size:15px;line-height:22px;">${title}${meta}${body}</p>`;
          })
          .join(''),
      );
    case 'table':
      return row(
        `<table role="presentation" width="100%" border="0" cellpadding="0" cellspacing="0" style="font-size:14px;">` +
          `<tr>${block.head.map((h) => `<th align="left" style="${FONT}padding:6px 8px 6px 0;border-bottom:2px solid ${RULE};color:${MUTED};">${escapeText(h)}</th>`).join('')}</tr>` +
          block.rows
            .map((r) => {
              const cells = r.cells.map((c, i) => {
                const text = i === 0 && r.url ? `<a href="${escapeAttr(r.url)}" style="color:${brand.primaryColor};">${escapeText(c)}</a>` : escapeText(c);
                return `<td style="${FONT}padding:6px 8px 6px 0;border-bottom:1px solid ${RULE};">${text}</td>`;
              });
              return `<tr>${cells.join('')}</tr>`;
            })
            .join('') +
          `</table>`,
      );
  }
}

export function blockText(block: Block): string {
  switch (block.kind) {
    case 'heading':
      return `${block.text}\n${'='.repeat(Math.min(block.text.length, 60))}`;
    case 'paragraph':
    case 'note':
      return block.text;
    case 'code':
      return `    ${block.text}`;
    case 'link':
    case 'button':
      return `${block.label}: ${block.url}`;
    case 'details':
      return block.rows.map(([label, value]) => `${label}: ${value}`).join('\n');
    case 'items': {
      // Each item: its title line, then the meta, body and link lines it has (empty ones are left out).
      let out = '';
      for (const i of block.items) {
        if (out !== '') out += '\n\n';
        out += `* ${i.title}`;
        if (i.meta) out += `\n  ${i.meta}`;
        if (i.body) out += `\n  ${i.body.includes('\n') ? i.body.replace(/\r?\n/g, '\n  ') : i.body}`;
        if (i.url) out += `\n  ${i.url}`;
      }
      return out;
    }
    case 'table':
      return [block.head.join(' | '), ...block.rows.map((r) => r.cells.join(' | ') + (r.url ? ` (${r.url})` : ''))].join('\n');
  }
}
