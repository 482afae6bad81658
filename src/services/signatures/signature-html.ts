import type sanitizeHtml from 'sanitize-html';
import { loadSanitizeHtml } from '../../core/runtime/format-libraries.js';

/**
 * What a signature's HTML may hold: the ordinary formatting of an e-mail signature (paragraphs,
 * emphasis, lists, tables for layout, links, images, a few inline styles). Everything else is
 * removed by sanitize-html: scripts and styles with their content, event handler attributes
 * (`onclick`, ...), and URLs whose scheme is not listed (`javascript:`, `vbscript:`, ...).
 */
const length = /^-?\d+(\.\d+)?(px|pt|em|rem|%)?$/i;
const lengths = /^(-?\d+(\.\d+)?(px|pt|em|rem|%)?|auto)(\s+(-?\d+(\.\d+)?(px|pt|em|rem|%)?|auto)){0,3}$/i;
const color = [/^#[0-9a-f]{3,8}$/i, /^rgba?\(\s*\d{1,3}%?\s*,\s*\d{1,3}%?\s*,\s*\d{1,3}%?\s*(,\s*(0|1|0?\.\d+)\s*)?\)$/i, /^[a-z]{3,30}$/i];
const border = /^(\d+(\.\d+)?(px|pt|em)?\s+)?(none|solid|dashed|dotted|double)(\s+(#[0-9a-f]{3,8}|[a-z]{3,30}))?$/i;

const policy = (defaults: typeof sanitizeHtml.defaults): sanitizeHtml.IOptions => ({
  allowedTags: [...defaults.allowedTags, 'img'],
  allowedAttributes: {
    '*': ['style'],
    a: ['href', 'name', 'target', 'title', 'rel'], // rel: only the value the transform below sets
    img: ['src', 'alt', 'title', 'width', 'height'],
    table: ['width', 'border', 'cellpadding', 'cellspacing', 'align'],
    td: ['colspan', 'rowspan', 'width', 'height', 'align', 'valign'],
    th: ['colspan', 'rowspan', 'width', 'height', 'align', 'valign'],
  },
  allowedSchemes: ['http', 'https', 'mailto', 'tel'],
  allowedSchemesByTag: { img: ['http', 'https', 'cid', 'data'] },
  allowedSchemesAppliedToAttributes: ['href', 'src', 'cite'],
  allowProtocolRelative: false,
  allowedStyles: {
    '*': {
      color,
      'background-color': color,
      'font-family': [/^[\w\s,'"-]{1,200}$/],
      'font-size': [length, /^(xx-small|x-small|small|medium|large|x-large|xx-large|smaller|larger)$/i],
      'font-weight': [/^(normal|bold|bolder|lighter|[1-9]00)$/i],
      'font-style': [/^(normal|italic|oblique)$/i],
      'text-decoration': [/^(none|underline|overline|line-through)$/i],
      'text-align': [/^(left|right|center|justify)$/i],
      'vertical-align': [/^(top|middle|bottom|baseline)$/i],
      'line-height': [length],
      width: [length],
      height: [length],
      margin: [lengths],
      padding: [lengths],
      border: [border],
      'border-top': [border],
      'border-bottom': [border],
      'border-left': [border],
      'border-right': [border],
    },
  },
  // A link that opens a new window must not hand that window a reference back to ours; a `rel`
  // from the input is dropped.
  transformTags: {
    a: (tagName, attribs) => {
      const { rel: _rel, ...rest } = attribs;
      return { tagName, attribs: rest.target ? { ...rest, rel: 'noopener noreferrer' } : rest };
    },
  },
});

/** The signature HTML as stored and served: sanitized, trimmed; nothing left is null. */
export async function sanitizeSignatureHtml(html: string | null | undefined): Promise<string | null> {
  if (!html) return null;
  const sanitizeHtml = await loadSanitizeHtml();
  const clean = sanitizeHtml(html, policy(sanitizeHtml.defaults)).trim();
  return clean === '' ? null : clean;
}
