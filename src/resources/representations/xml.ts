/**
 * @module resources/representations/xml
 * Safe XML in and out: escaping for output, and parsing that refuses DOCTYPEs (no entity
 * expansion, no external entities) and validates before fast-xml-parser builds anything.
 */
import { XMLParser, XMLValidator } from 'fast-xml-parser';
import { HttpError } from '../../errors/http-error.js';

const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&apos;' };

/** Escapes text for element content and attribute values. */
export function escapeXml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ESCAPES[c]!);
}

// Keep every value as text: `9.90` must stay `9.90`, never become the number 9.9.
const parser = new XMLParser({
  ignoreAttributes: false,
  attributeNamePrefix: '@',
  parseTagValue: false,
  parseAttributeValue: false,
  trimValues: false,
  processEntities: true,
  ignoreDeclaration: true,
  ignorePiTags: true,
  isArray: () => false,
});

/** Parses an XML document into plain objects; malformed XML or any DOCTYPE → 400. */
export function parseXml(raw: Buffer): Record<string, unknown> {
  const text = raw.toString('utf8');
  // A DOCTYPE can declare entities (billion laughs, external entities): refused before parsing.
  if (/<!DOCTYPE/i.test(text) || /<!ENTITY/i.test(text)) {
    throw new HttpError(400, 'DOCTYPE and ENTITY declarations are not allowed', { code: 'ROA_ERR_XML_DOCTYPE' });
  }
  // fast-xml-parser accepts malformed input when parsing, so validate first.
  const valid = XMLValidator.validate(text);
  if (valid !== true) {
    throw new HttpError(400, `Malformed XML: ${valid.err.msg} (line ${valid.err.line})`, { code: 'ROA_ERR_MALFORMED_XML' });
  }
  return parser.parse(text) as Record<string, unknown>;
}
