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

// Every block is one table row; the markup around caller text is written once, per brand where it
// holds a brand colour (D40), and the pieces are concatenated without intermediate arrays.
const ROW_OPEN = `<tr><td style="${FONT}padding:0 0 16px 0;color:${TEXT};font-size:16px;line-height:24px;">`;
const ROW_CLOSE = '</td></tr>';
const ITEM_OPEN = `<p style="margin:0;padding:10px 0;border-bottom:1px solid ${RULE};font-size:15px;line-height:22px;">`;
const ITEM_META = `<br><span style="font-size:12px;color:${MUTED};">`;
const ITEM_BODY = '<br><span style="font-size:14px;">';
const DETAILS_OPEN = `<table role="presentation" width="100%" border="0" cellpadding="0" cellspacing="0" style="border-top:1px solid ${RULE};">`;
const DETAILS_LABEL = `<tr><td style="${FONT}padding:8px 12px 8px 0;border-bottom:1px solid ${RULE};font-size:14px;color:${MUTED};width:40%;vertical-align:top;">`;
const DETAILS_VALUE = `</td><td style="${FONT}padding:8px 0;border-bottom:1px solid ${RULE};font-size:14px;color:${TEXT};vertical-align:top;word-break:break-word;">`;
const TABLE_OPEN = `<table role="presentation" width="100%" border="0" cellpadding="0" cellspacing="0" style="font-size:14px;">`;
const TABLE_HEAD = `<th align="left" style="${FONT}padding:6px 8px 6px 0;border-bottom:2px solid ${RULE};color:${MUTED};">`;
const TABLE_CELL = `<td style="${FONT}padding:6px 8px 6px 0;border-bottom:1px solid ${RULE};">`;

interface BrandPieces {
  linkOpen: string;
  linkMid: string;
  buttonOpen: string;
  itemLinkMid: string;
  cellLinkMid: string;
}
const pieces = new WeakMap<Brand, BrandPieces>();

function piecesOf(brand: Brand): BrandPieces {
  let p = pieces.get(brand);
  if (!p) {
    const color = brand.primaryColor;
    p = {
      linkOpen: '<a href="',
      linkMid: `" style="color:${color};text-decoration:underline;">`,
      buttonOpen:
        `<table role="presentation" border="0" cellpadding="0" cellspacing="0"><tr><td bgcolor="${color}" style="border-radius:6px;background:${color};">` +
        `<a href="`,
      itemLinkMid: `" style="color:${color};text-decoration:none;font-weight:600;">`,
      cellLinkMid: `" style="color:${color};">`,
    };
    pieces.set(brand, p);
  }
  return p;
}

export function blockHtml(block: Block, brand: Brand): string {
  switch (block.kind) {
    case 'heading':
      return `${ROW_OPEN}<h1 style="margin:0;${FONT}font-size:22px;line-height:30px;font-weight:700;color:${TEXT};">${escapeText(block.text)}</h1>${ROW_CLOSE}`;
    case 'paragraph':
      return ROW_OPEN + multiline(block.text) + ROW_CLOSE;
    case 'note':
      return `${ROW_OPEN}<span style="font-size:13px;line-height:20px;color:${MUTED};">${multiline(block.text)}</span>${ROW_CLOSE}`;
    case 'code':
      return (
        `${ROW_OPEN}<div style="${FONT}font-size:28px;line-height:36px;font-weight:700;letter-spacing:6px;color:${TEXT};background:#F3F4F6;border-radius:6px;padding:12px 16px;text-align:center;">` +
        `${escapeText(block.text)}</div>${ROW_CLOSE}`
      );
    case 'link': {
      const p = piecesOf(brand);
      return `${ROW_OPEN}${p.linkOpen}${escapeAttr(block.url)}${p.linkMid}${escapeText(block.label)}</a>${ROW_CLOSE}`;
    }
    case 'button':
      // Bulletproof button: the table cell carries the colour so Outlook (no padding on <a>) shows it too.
      return (
        `${ROW_OPEN}${piecesOf(brand).buttonOpen}${escapeAttr(block.url)}" target="_blank" style="display:inline-block;${FONT}font-size:16px;font-weight:600;line-height:20px;color:#FFFFFF;text-decoration:none;padding:12px 24px;border-radius:6px;">` +
        `${escapeText(block.label)}</a></td></tr></table>` +
        `<p style="margin:8px 0 0 0;font-size:12px;line-height:18px;color:${MUTED};word-break:break-all;">${escapeText(block.url)}</p>${ROW_CLOSE}`
      );
    case 'details': {
      let out = ROW_OPEN + DETAILS_OPEN;
      for (const [label, value] of block.rows)
        out += `${DETAILS_LABEL}${escapeText(label)}${DETAILS_VALUE}${multiline(value)}</td></tr>`;
      return `${out}</table>${ROW_CLOSE}`;
    }
    case 'items': {
      const itemLinkMid = piecesOf(brand).itemLinkMid;
      let out = ROW_OPEN;
      for (const item of block.items) {
        out += ITEM_OPEN;
        out += item.url
          ? `<a href="${escapeAttr(item.url)}${itemLinkMid}${escapeText(item.title)}</a>`
          : `<b>${escapeText(item.title)}</b>`;
        if (item.meta) out += `${ITEM_META}${escapeText(item.meta)}</span>`;
        if (item.body) out += `${ITEM_BODY}${multiline(item.body)}</span>`;
        out += '</p>';
      }
      return out + ROW_CLOSE;
    }
    case 'table': {
      const cellLinkMid = piecesOf(brand).cellLinkMid;
      let out = `${ROW_OPEN}${TABLE_OPEN}<tr>`;
      for (const h of block.head) out += `${TABLE_HEAD}${escapeText(h)}</th>`;
      out += '</tr>';
      for (const r of block.rows) {
        out += '<tr>';
        for (let i = 0; i < r.cells.length; i++) {
          const c = r.cells[i]!;
          out +=
            TABLE_CELL +
            (i === 0 && r.url ? `<a href="${escapeAttr(r.url)}${cellLinkMid}${escapeText(c)}</a>` : escapeText(c)) +
            '</td>';
        }
        out += '</tr>';
      }
      return `${out}</table>${ROW_CLOSE}`;
    }
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
      return [
        block.head.join(' | '),
        ...block.rows.map((r) => r.cells.join(' | ') + (r.url ? ` (${r.url})` : '')),
      ].join('\n');
  }
}
